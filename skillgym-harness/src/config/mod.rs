//! skillgym.yaml.
