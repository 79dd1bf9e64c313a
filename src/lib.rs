//! Holds the workspace's end-to-end tests (see `tests/`); it has no code of its own.
