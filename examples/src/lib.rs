//! Example benchmark suites for skillgym. The suites are in `tests/`; `src/bin/example-agent.rs`
//! is a tiny deterministic stand-in for a coding agent, so the examples run with no agent
//! installed and no API key.
