// @leap/slice: the LEAP engine.
export {};
