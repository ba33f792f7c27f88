export { createOtpMode, MemoryOtpMode, RedisOtpMode, type OtpModeStore } from './mode';
export { createOtpTickets, MemoryOtpTickets, RedisOtpTickets, type OtpTicket, type OtpTicketStore } from './tickets';
export { UpstreamOtp } from './upstream-otp';
