//! Declarative suites (agentv-compatible `EVAL.yaml`, `case.yaml`).

mod node;
