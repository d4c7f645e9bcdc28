// @leap/conductor: leap tdd and leap demo.
export {};
