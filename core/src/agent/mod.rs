//! The agent-directory protocol.
