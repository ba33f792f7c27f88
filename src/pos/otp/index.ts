export { createOtpMode, MemoryOtpMode, RedisOtpMode, type LearntOtpMode, type OtpModeStore } from './mode';
export { createOtpTickets, MemoryOtpTickets, RedisOtpTickets, type OtpTicket, type OtpTicketStore } from './tickets';
export { UpstreamOtp, type OtpBelief, type OtpModeSetting } from './upstream-otp';
