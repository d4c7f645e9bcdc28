// @leap/tracker-github: issues and draft pull requests on GitHub, through gh.
export {};
