//! Handing a value to a thread of its own, and having it back when no thread can be had.
//!
//! | outcome of the spawn | the value |
//! |---|---|
//! | the thread started | moved to it, given to its work |
//! | no thread (the system refused one) | given back to the caller, untouched |
//!
//! `std::thread::Builder::spawn` drops its closure, and the value in it, when it fails; the
//! value goes through a slot here instead, which the thread empties when it starts.

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

/// Starts a thread named `name` doing `work` with `value`; `Err(value)` when it cannot start.
pub(crate) fn spawn_with<T, R>(
    name: &str,
    value: T,
    work: impl FnOnce(T) -> R + Send + 'static,
) -> Result<JoinHandle<R>, T>
where
    T: Send + 'static,
    R: Send + 'static,
{
    let slot = Arc::new(Mutex::new(Some(value)));
    let taken = Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let value = taken
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .expect("the value is in its slot until the thread takes it");
            work(value)
        });
    spawned.map_err(|_| {
        slot.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .expect("a thread that was not spawned took nothing")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_reaches_the_named_thread_and_its_work_comes_back() {
        let thread = spawn_with("skillgym-handoff-test", vec![1, 2, 3], |numbers| {
            let name = std::thread::current().name().map(str::to_owned);
            (numbers.iter().sum::<i32>(), name)
        })
        .unwrap_or_else(|_| panic!("a thread"));
        assert_eq!(
            thread.join().unwrap(),
            (6, Some("skillgym-handoff-test".to_owned()))
        );
    }
}
