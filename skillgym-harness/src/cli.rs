//! skillgym flags and SKILLGYM_* environment variables.
