//! Helpers shared by the end-to-end tests (this package is not published).
