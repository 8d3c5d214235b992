//! The async runtimes executions run their sessions on, kept for the next execution instead of
//! built and torn down for each (an epoll instance, an eventfd, the timer wheel and their
//! registrations every time).
//!
//! Each execution leases a current-thread runtime for its whole repeat/retry loop, as it
//! built one before. When the lease ends, the runtime goes back only if nothing but the
//! harness's own code ran on it and nothing is left on it, which is what the next execution
//! would have found on a fresh one:
//!
//! | at the end of the lease | the runtime is |
//! |---|---|
//! | only the harness's futures ran (sessions, bootstraps, the judge), no task alive | kept for the next execution, on any thread |
//! | a Rust case's `async` check ran on it (its code may spawn tasks, pause the clock, ...) | dropped |
//! | a task is still alive | dropped (with the task) |
//! | the execution is unwinding from a panic | dropped |
//!
//! Process supervision holds nothing on a runtime between two `block_on` calls: a session's
//! pipes, pidfd and timers are dropped with its future; a child dropped unreaped goes to
//! Tokio's process-wide orphan queue, whatever the runtime. Interrupts use their own signal
//! thread ([`crate::interrupt`]), not the runtime.

use std::cell::Cell;
use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use tokio::runtime::Runtime;

/// The runtimes no execution holds now.
static IDLE: Mutex<Vec<Runtime>> = Mutex::new(Vec::new());

/// One execution's runtime; given back (or dropped) when the lease is dropped.
#[derive(Debug)]
pub(super) struct Lease {
    runtime: Option<Runtime>,
    /// Cleared once code other than the harness's ran on the runtime.
    reusable: Cell<bool>,
}

impl Lease {
    /// An idle runtime, or a new one with the IO and time drivers enabled.
    pub(super) fn take() -> std::io::Result<Lease> {
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let runtime = match idle {
            Some(runtime) => runtime,
            None => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?,
        };
        Ok(Lease {
            runtime: Some(runtime),
            reusable: Cell::new(true),
        })
    }

    /// Says that code of the case (not the harness's) runs on the runtime: it is dropped at
    /// the end of the lease instead of being kept.
    pub(super) fn foreign_code(&self) {
        self.reusable.set(false);
    }

    /// Whether the runtime would be kept if the lease ended now.
    fn keeps(&self, runtime: &Runtime) -> bool {
        self.reusable.get() && !std::thread::panicking() && runtime.metrics().num_alive_tasks() == 0
    }
}

impl Deref for Lease {
    type Target = Runtime;

    fn deref(&self) -> &Runtime {
        self.runtime
            .as_ref()
            .unwrap_or_else(|| unreachable!("a lease holds its runtime until it is dropped"))
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let Some(runtime) = self.runtime.take() else {
            return;
        };
        if self.keeps(&runtime) {
            IDLE.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(runtime);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runtime's identity, to tell whether a lease got a kept one.
    fn id(lease: &Lease) -> tokio::runtime::Id {
        lease.handle().id()
    }

    fn is_idle(runtime: tokio::runtime::Id) -> bool {
        IDLE.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|idle| idle.handle().id() == runtime)
    }

    #[test]
    fn a_clean_runtime_is_kept_and_a_used_one_is_dropped() {
        let clean = Lease::take().unwrap();
        clean.block_on(async { tokio::time::sleep(std::time::Duration::from_millis(1)).await });
        let clean_id = id(&clean);
        drop(clean);
        assert!(is_idle(clean_id), "a runtime only the harness used is kept");

        let foreign = Lease::take().unwrap();
        foreign.foreign_code();
        let foreign_id = id(&foreign);
        drop(foreign);
        assert!(
            !is_idle(foreign_id),
            "a runtime a case's code ran on is dropped"
        );

        let busy = Lease::take().unwrap();
        busy.block_on(async {
            tokio::spawn(std::future::pending::<()>());
        });
        let busy_id = id(&busy);
        drop(busy);
        assert!(!is_idle(busy_id), "a runtime with a task alive is dropped");
    }
}
