//! Freeing a large value on a thread of its own, off the path the run waits on.
//!
//! A long session's report holds tens of thousands of events, each with strings of its own;
//! freeing them takes milliseconds that the next attempt (or the end of the run) would wait
//! for. [`drop_aside`] hands such a value to a short-lived thread instead.
//!
//! | size | where it is freed |
//! |---|---|
//! | under [`LARGE`] items | here, at once: a thread costs more than freeing it |
//! | [`LARGE`] items or more | on a thread named `skillgym-free`; here if no thread can start |
//!
//! The thread is not waited for: the process may end while it still frees, and the operating
//! system takes the rest back.

use std::thread;

/// How many items (events, records) make a value worth a thread of its own to free.
pub(crate) const LARGE: usize = 4096;

/// Drops `value`, on a thread of its own when it holds `items` of at least [`LARGE`].
pub(crate) fn drop_aside<T: Send + 'static>(value: T, items: usize) {
    if items >= LARGE {
        // A thread that cannot start drops its closure, and `value` with it, here.
        let _detached = thread::Builder::new()
            .name("skillgym-free".to_owned())
            .spawn(move || drop(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// Reports on `tx` which thread dropped it.
    struct Tattler(mpsc::Sender<Option<String>>);

    impl Drop for Tattler {
        fn drop(&mut self) {
            let name = thread::current().name().map(str::to_owned);
            let _ = self.0.send(name);
        }
    }

    #[test]
    fn a_small_value_is_dropped_here_and_a_large_one_on_its_own_thread() {
        let (tx, rx) = mpsc::channel();
        let here = thread::current().name().map(str::to_owned);
        drop_aside(Tattler(tx.clone()), LARGE - 1);
        assert_eq!(rx.try_recv().expect("dropped at once"), here);
        drop_aside(Tattler(tx), LARGE);
        let dropper = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("dropped on its thread");
        assert_eq!(dropper.as_deref(), Some("skillgym-free"));
    }
}
