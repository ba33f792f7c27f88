/**
 * The address a process on this machine reaches a server at, given the host it
 * binds: a wildcard bind (IPv4, or IPv6 with its IPv4 side) is reached on
 * 127.0.0.1; any other address as it is.
 * Plain and dependency-free: the container's healthcheck runs it every time.
 */
export function localAddressOf(bindHost: string): string {
  return bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : bindHost;
}
