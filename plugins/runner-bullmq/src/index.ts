// @leap/runner-bullmq: LEAP balls on BullMQ workers over Redis.
export {};
