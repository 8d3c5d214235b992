//! Agent process supervision.
