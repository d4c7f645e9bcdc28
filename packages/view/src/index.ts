// @leap/view: leap status and leap report.
export {};
