//! Descendants that leave their process group: finding them and ending them.
//!
//! Every process [`crate::process::run`] starts leads a new process group, and that group is
//! killed when the session ends. A descendant that calls `setsid(2)` (or `setpgid`) leaves the
//! group and would survive. What is done about it depends on the system:
//!
//! | system | what is done |
//! |---|---|
//! | Linux | The harness makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`), so a descendant orphaned by the group kill is reparented to the harness instead of init. Each process carries the variable [`MARKER`] with a tag of its session; once the session's group is killed, the harness's children whose environment carries that tag are killed with their own group and reaped, and so are the orphaned zombies of the group (the leaders of the other sessions still running are passed over unread). At the end of the run (and on an interrupt) every child carrying a tag of this harness is killed. |
//! | other Unix | No subreaper and no `/proc`: a descendant that left the process group is out of reach and outlives the session (it is reparented to init). Its stdout pipe is abandoned after a 2 s grace, so it cannot hang the run. |
//!
//! A descendant that also clears its environment drops the tag: on Linux it is then killed at
//! the end of the run.

/// The environment variable that tags a process with its session (`<harness pid>.<sequence>`).
pub(crate) const MARKER: &str = "SKILLGYM_PROCESS";

/// A fresh tag for one process run: `<harness pid>.<sequence>`.
pub(crate) fn new_tag() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQUENCE: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}.{}",
        std::process::id(),
        SEQUENCE.fetch_add(1, Ordering::Relaxed)
    )
}

/// Makes this process the reaper of its orphaned descendants (Linux); `false` elsewhere or when
/// the kernel refuses.
pub(crate) fn become_subreaper() -> bool {
    imp::become_subreaper()
}

/// Ends what is left of one session after its group was killed and its leader reaped: the
/// harness's children in group `pgid` (orphaned, reparented zombies) and those tagged `tag`
/// (escaped with `setsid`), each killed with its own group and reaped. Waits at most half a
/// second for the group to empty. Children for which `runs_a_session` holds (the leaders of
/// the sessions still running, [`crate::interrupt::is_registered_group`]) are passed over.
/// Returns how many escaped processes were killed.
pub(crate) fn end_session(tag: &str, pgid: u32, runs_a_session: fn(i32) -> bool) -> usize {
    imp::end_session(tag, pgid, runs_a_session)
}

/// Kills, without reaping, every child of the harness with its group: used on an interrupt,
/// while sessions may still be reaping their own leaders.
pub(crate) fn kill_escaped() {
    imp::kill_children(false);
}

/// Kills and reaps every child of the harness: the last sweep of a run, when no session runs
/// any more and a child can only be a descendant that escaped its session. Returns how many
/// were still alive.
pub(crate) fn end_run() -> usize {
    imp::kill_children(true)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::time::{Duration, Instant};

    use libc::pid_t;

    /// How long [`end_session`] waits for the orphans of a killed group to die.
    const SESSION_GRACE: Duration = Duration::from_millis(500);

    pub(super) fn become_subreaper() -> bool {
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) only sets a flag of this process.
        unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 }
    }

    pub(super) fn end_session(tag: &str, pgid: u32, runs_a_session: fn(pid_t) -> bool) -> usize {
        let Ok(pgid) = pid_t::try_from(pgid) else {
            return 0;
        };
        if pgid <= 1 {
            return 0;
        }
        // The usual end: the leader was the only child and is reaped, and its group is empty.
        // With no child at all there is nothing to find below (an orphan of the group would
        // be a child of ours, and so would a tagged escapee), so the `/proc` scan is skipped.
        if !has_children() && !group_alive(pgid) {
            return 0;
        }
        let wanted = format!("{}={tag}", super::MARKER);
        let started = Instant::now();
        let mut escaped = 0;
        loop {
            let mut found = false;
            for child in children() {
                // Another session's agent, still running: its own end looks after it, and
                // reading its environment (a copy of its memory) for every session would
                // cost each session as much as the sessions running beside it.
                if child == pgid || runs_a_session(child) {
                    continue;
                }
                if group_of(child) == Some(pgid) {
                    found = true;
                    kill_and_reap(child);
                } else if carries(child, |entry| entry == wanted) {
                    found = true;
                    escaped += 1;
                    kill_and_reap(child);
                }
            }
            if (!found && !group_alive(pgid)) || started.elapsed() > SESSION_GRACE {
                return escaped;
            }
            if !found {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }

    pub(super) fn kill_children(reap: bool) -> usize {
        let mut alive = 0;
        // Killing a child may orphan grandchildren that left its group: a few rounds find them.
        for _ in 0..8 {
            let children = children();
            if children.is_empty() {
                break;
            }
            for child in children {
                if !is_zombie(child) {
                    alive += 1;
                }
                if reap {
                    kill_and_reap(child);
                } else {
                    kill(child);
                }
            }
            if !reap {
                break;
            }
        }
        alive
    }

    /// SIGKILL to the process and to the group it leads (if it leads one).
    fn kill(pid: pid_t) {
        // SAFETY: kill(2) has no memory-safety preconditions; `pid > 1` is a child of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
            libc::kill(pid, libc::SIGKILL);
        }
    }

    /// Kills a child of ours and reaps it (waiting at most a second for it to die).
    fn kill_and_reap(pid: pid_t) {
        kill(pid);
        let deadline = Instant::now() + Duration::from_secs(1);
        loop {
            let mut status = 0;
            // SAFETY: waitpid on a specific child of ours; `status` is a valid out pointer.
            let reaped = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if reaped != 0 || Instant::now() > deadline {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Whether the group `pgid` still has members (zombies included).
    fn group_alive(pgid: pid_t) -> bool {
        // SAFETY: signal 0 only asks whether the group still has members.
        unsafe { libc::kill(-pgid, 0) == 0 }
    }

    /// Whether this process has any child at all, running or a zombie, of any thread: one
    /// `waitid` that reaps nothing (`WNOWAIT`), instead of reading every thread's `children`
    /// list. `ECHILD` is the only answer taken for "none"; any other says "maybe".
    pub(super) fn has_children() -> bool {
        // SAFETY: an all-zero `siginfo_t` is a valid value of this plain C struct.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid out pointer; WNOHANG | WNOWAIT neither blocks nor reaps.
        let answer = unsafe {
            libc::waitid(
                libc::P_ALL,
                0,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT | libc::__WALL,
            )
        };
        !(answer == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD))
    }

    /// The children of this process, from every thread's `children` list.
    fn children() -> Vec<pid_t> {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return Vec::new();
        };
        let mut children = Vec::new();
        for task in tasks.flatten() {
            if let Ok(list) = std::fs::read_to_string(task.path().join("children")) {
                children.extend(
                    list.split_ascii_whitespace()
                        .filter_map(|pid| pid.parse::<pid_t>().ok())
                        .filter(|&pid| pid > 1),
                );
            }
        }
        children.sort_unstable();
        children.dedup();
        children
    }

    /// The fields of `/proc/<pid>/stat` after the command name: `state ppid pgrp ...`.
    fn stat(pid: pid_t) -> Option<String> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ...`; comm may hold spaces and parentheses.
        Some(stat[stat.rfind(')')? + 1..].to_owned())
    }

    /// The process group of a process (zombies included).
    fn group_of(pid: pid_t) -> Option<pid_t> {
        stat(pid)?.split_ascii_whitespace().nth(2)?.parse().ok()
    }

    /// Whether the process has exited and only waits to be reaped.
    fn is_zombie(pid: pid_t) -> bool {
        stat(pid).is_some_and(|fields| fields.trim_start().starts_with('Z'))
    }

    /// Whether an entry of the process's environment satisfies `matches`.
    fn carries(pid: pid_t, matches: impl Fn(&str) -> bool) -> bool {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            return false;
        };
        environ
            .split(|&byte| byte == 0)
            .filter_map(|entry| std::str::from_utf8(entry).ok())
            .any(matches)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn become_subreaper() -> bool {
        false
    }

    pub fn end_session(_tag: &str, _pgid: u32, _runs_a_session: fn(i32) -> bool) -> usize {
        0
    }

    pub fn kill_children(_reap: bool) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_running_child_is_seen_without_reading_proc() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        let seen = imp::has_children();
        let _ = child.kill();
        let _ = child.wait();
        assert!(seen, "a running child must be seen");
    }

    /// A session that ends beside one still running leaves the running one's agent alone,
    /// even one whose environment would match (the leader of a running session is never an
    /// escapee), and still ends its own escapee.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_agent_of_a_session_still_running_is_passed_over() {
        use std::os::unix::process::CommandExt;

        let tag = new_tag();
        let spawn = || {
            std::process::Command::new("sleep")
                .arg("30")
                .env(MARKER, &tag)
                .process_group(0)
                .spawn()
                .expect("spawn sleep")
        };
        static RUNNING: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);
        fn runs_a_session(pid: i32) -> bool {
            pid == RUNNING.load(std::sync::atomic::Ordering::SeqCst)
        }
        let (mut running, mut escaped) = (spawn(), spawn());
        let running_pid = i32::try_from(running.id()).expect("pid");
        RUNNING.store(running_pid, std::sync::atomic::Ordering::SeqCst);
        let killed = end_session(&tag, u32::MAX >> 1, runs_a_session);
        let still_running = matches!(running.try_wait(), Ok(None));
        let _ = running.kill();
        let _ = running.wait();
        let escaped_pid = libc::pid_t::try_from(escaped.id()).expect("pid");
        // SAFETY: signal 0 only asks whether the process exists.
        let escaped_gone = unsafe { libc::kill(escaped_pid, 0) } == -1;
        if !escaped_gone {
            let _ = escaped.kill();
            let _ = escaped.wait();
        }
        assert!(still_running, "the running session's agent was killed");
        assert_eq!(killed, 1, "the escapee carrying the tag is killed");
        assert!(escaped_gone, "the escapee is killed and reaped");
    }

    #[test]
    fn tags_are_unique_and_name_the_harness() {
        let (a, b) = (new_tag(), new_tag());
        assert_ne!(a, b);
        assert!(a.starts_with(&format!("{}.", std::process::id())), "{a}");
    }
}
