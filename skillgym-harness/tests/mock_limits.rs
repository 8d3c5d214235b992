//! The scripted model server against hostile clients, through its socket: chunk sizes past
//! any limit, loose framing, text that once broke the reply, memory that grows with the bytes
//! received rather than with what a request announces, idle connections, the connection cap,
//! and an accept loop that backs off when file descriptors run out.
//!
//! The test binary records the largest single allocation of the process (its global
//! allocator), so that a server reserving what a request announces is seen without relying
//! on RSS.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use skillgym_harness::mock::http::Limits;
use skillgym_harness::mock::{MockServer, Script, ServerOptions, SessionSetup, Step};

/// The system allocator, recording the largest block asked for.
struct RecordingAllocator;

/// The largest allocation (or reallocation) of the process so far, in bytes.
static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to `System`; only sizes are recorded.
unsafe impl GlobalAlloc for RecordingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: RecordingAllocator = RecordingAllocator;

/// A server answering `done`, with `limits`, serving requests that name no session.
fn server(limits: Limits) -> MockServer {
    MockServer::start(ServerOptions {
        default_session: Some(SessionSetup::new(Arc::new(Script::answer("done")))),
        limits,
        ..ServerOptions::default()
    })
    .expect("the mock starts")
}

/// A connection whose reads give up after `timeout`.
fn connect(addr: SocketAddr, timeout: Duration) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("connect to the mock");
    stream.set_read_timeout(Some(timeout)).unwrap();
    stream
}

/// Everything the server sends until it closes the connection; panics when it does not
/// within the connection's read timeout.
fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut answer = Vec::new();
    match stream.read_to_end(&mut answer) {
        Ok(_) => answer,
        Err(error) if error.kind() == ErrorKind::ConnectionReset => answer,
        Err(error) => panic!(
            "the server did not close the connection ({error}); it sent {:?}",
            String::from_utf8_lossy(&answer)
        ),
    }
}

/// The head of the next response, up to its empty line (bodiless responses: `HEAD`).
fn read_head(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            break;
        }
        head.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// Asks `HEAD /` on a keep-alive connection and returns the status line.
fn head_request(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let head = read_head(stream).expect("an answer to HEAD");
    head.lines().next().unwrap_or_default().to_owned()
}

fn assert_serving(addr: SocketAddr) {
    let mut stream = connect(addr, Duration::from_secs(10));
    assert_eq!(head_request(&mut stream), "HTTP/1.1 200 OK");
}

const CHUNKED_HEAD: &str =
    "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";

#[test]
fn a_chunk_size_past_any_limit_is_refused_and_the_server_goes_on() {
    let server = server(Limits::default());
    for sizes in [
        // After a first chunk: the running total overflowed.
        "1\r\na\r\nffffffffffffffff\r\n",
        "ffffffffffffffff\r\n",
        "3\r\nabc\r\n4000001\r\n",
        // More digits than any size has.
        "1\r\na\r\n1ffffffffffffffffff\r\n",
    ] {
        let mut stream = connect(server.addr(), Duration::from_secs(10));
        stream
            .write_all(format!("{CHUNKED_HEAD}{sizes}").as_bytes())
            .unwrap();
        let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
        assert!(
            answer.starts_with("HTTP/1.1 413 Content Too Large\r\n"),
            "{sizes:?}: {answer:?}"
        );
        assert!(answer.contains("the request body is too large"), "{answer}");
    }
    assert_serving(server.addr());
}

#[test]
fn malformed_chunk_framing_is_a_400() {
    let server = server(Limits::default());
    let head = "POST /v1/chat/completions HTTP/1.1\r\nConnection: close\r\n\
                Transfer-Encoding: chunked\r\n\r\n";
    // Each would read `{}` (a request the server answers) if the framing were taken loosely.
    for framing in [
        "+2\r\n{}\r\n0\r\n\r\n",
        "0x2\r\n{}\r\n0\r\n\r\n",
        "2\r\n{}XY0\r\n\r\n",
        "2\r\n{}\r\n0\r\nno colon\r\n\r\n",
        "-1\r\n",
        "\r\n",
    ] {
        let mut stream = connect(server.addr(), Duration::from_secs(10));
        stream
            .write_all(format!("{head}{framing}").as_bytes())
            .unwrap();
        let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
        assert!(
            answer.starts_with("HTTP/1.1 400 Bad Request\r\n"),
            "{framing:?}: {answer:?}"
        );
    }
    assert_serving(server.addr());
}

#[test]
fn memory_grows_with_the_bytes_received_not_with_the_size_announced() {
    let server = server(Limits::default());
    let announced = 60 * 1024 * 1024;
    let mut held = Vec::new();
    for index in 0..6 {
        let mut stream = connect(server.addr(), Duration::from_secs(10));
        let head = if index % 2 == 0 {
            format!("POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: {announced}\r\n\r\n")
        } else {
            format!("{CHUNKED_HEAD}{announced:x}\r\n")
        };
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&[b' '; 1024]).unwrap();
        held.push(stream);
    }
    // The server reads what was sent and waits for the rest; a head-only request on another
    // connection, answered after them, shows it got that far.
    std::thread::sleep(Duration::from_millis(300));
    assert_serving(server.addr());
    let largest = LARGEST.load(Ordering::Relaxed);
    assert!(
        largest < 4 * 1024 * 1024,
        "the largest allocation was {largest} bytes while each request had sent 1 KiB"
    );
    drop(held);
}

#[test]
fn a_half_sent_request_gets_408_after_the_idle_limit() {
    let idle = Duration::from_millis(300);
    let server = server(Limits {
        idle,
        ..Limits::default()
    });
    for partial in [
        "POST /v1/messages HTTP/1.1\r\nContent-Le",
        "POST /v1/messages HTTP/1.1\r\nContent-Length: 10\r\n\r\n{\"a\"",
        &format!("{CHUNKED_HEAD}5\r\nab"),
    ] {
        let started = Instant::now();
        let mut stream = connect(server.addr(), Duration::from_secs(10));
        stream.write_all(partial.as_bytes()).unwrap();
        let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
        assert!(
            answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
            "{partial:?}: {answer:?}"
        );
        assert!(started.elapsed() >= idle, "{:?}", started.elapsed());
    }
    assert_serving(server.addr());
}

#[test]
fn a_slow_request_is_served_while_bytes_keep_coming() {
    let server = server(Limits {
        idle: Duration::from_millis(400),
        ..Limits::default()
    });
    let mut stream = connect(server.addr(), Duration::from_secs(10));
    for piece in [
        "HEAD / HTTP/1.1\r\n",
        "Host: x\r\n",
        "X-Slow: 1\r\n",
        "\r\n",
    ] {
        stream.write_all(piece.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(150));
    }
    let head = read_head(&mut stream).unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head:?}");
}

#[test]
fn an_idle_kept_alive_connection_is_closed_after_its_limit() {
    let keep_alive = Duration::from_millis(300);
    let server = server(Limits {
        keep_alive,
        ..Limits::default()
    });
    let started = Instant::now();
    let mut stream = connect(server.addr(), Duration::from_secs(10));
    assert_eq!(head_request(&mut stream), "HTTP/1.1 200 OK");
    assert!(read_until_closed(&mut stream).is_empty());
    assert!(started.elapsed() >= keep_alive, "{:?}", started.elapsed());
    // A connection that never sends a byte is closed the same way.
    let mut silent = connect(server.addr(), Duration::from_secs(10));
    assert!(read_until_closed(&mut silent).is_empty());
}

#[test]
fn connections_beyond_the_cap_wait_until_one_closes() {
    let server = server(Limits {
        max_connections: 2,
        ..Limits::default()
    });
    let mut first = connect(server.addr(), Duration::from_secs(10));
    let mut second = connect(server.addr(), Duration::from_secs(10));
    assert_eq!(head_request(&mut first), "HTTP/1.1 200 OK");
    assert_eq!(head_request(&mut second), "HTTP/1.1 200 OK");
    let mut third = connect(server.addr(), Duration::from_millis(500));
    third
        .write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let error = read_head(&mut third).expect_err("no answer while two connections are open");
    assert!(
        matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{error}"
    );
    first.shutdown(Shutdown::Both).unwrap();
    drop(first);
    third
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = read_head(&mut third).expect("an answer once a connection closed");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head:?}");
    assert_eq!(head_request(&mut second), "HTTP/1.1 200 OK");
}

#[test]
fn a_skill_path_after_a_wide_space_is_planned_without_a_panic() {
    let server = MockServer::start(ServerOptions {
        default_session: Some(SessionSetup::new(Arc::new(Script::new(vec![Step::Skill(
            "demo".to_owned(),
        )])))),
        ..ServerOptions::default()
    })
    .expect("the mock starts");
    // A no-break space before the path: a multi-byte separator.
    let body = serde_json::json!({
        "model": "m",
        "system": "skills:\u{a0}/ws/demo/SKILL.md",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}],
    })
    .to_string();
    let mut stream = connect(server.addr(), Duration::from_secs(10));
    let request = format!(
        "POST /v1/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let answer = String::from_utf8_lossy(&read_until_closed(&mut stream)).into_owned();
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer:?}");
    assert!(
        answer.contains(r#""input":{"command":"cat /ws/demo/SKILL.md"}"#),
        "{answer}"
    );
}

/// Set in the child process of [`the_accept_loop_backs_off_when_descriptors_run_out`].
const CHILD: &str = "SKILLGYM_MOCK_LIMITS_CHILD";

/// Runs in a child process (it lowers the descriptor limit): starts a server, uses up every
/// file descriptor, prints `ready PORT`, waits for a line on stdin (the parent connected),
/// prints `cpu MICROSECONDS` spent by the process over the next second, then frees the
/// descriptors and waits for stdin to close. Does nothing in the test run itself.
#[test]
#[cfg(unix)]
fn accept_back_off_child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let server = server(Limits::default());
    // SAFETY: plain libc calls on a local struct and descriptors this process owns.
    let spare = unsafe {
        let mut limit = std::mem::zeroed::<libc::rlimit>();
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_cur.min(256);
        assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &limit), 0);
        let mut spare = Vec::new();
        loop {
            let fd = libc::dup(2);
            if fd < 0 {
                break;
            }
            spare.push(fd);
        }
        spare
    };
    assert!(
        TcpStream::connect(server.addr()).is_err(),
        "descriptors are used up"
    );
    println!("ready {}", server.addr().port());
    let mut stdin = std::io::stdin().lock();
    let mut line = String::new();
    stdin.read_line(&mut line).unwrap();
    let before = cpu_time();
    std::thread::sleep(Duration::from_secs(1));
    let spent = cpu_time() - before;
    for fd in spare {
        // SAFETY: `fd` was opened above and is closed once.
        unsafe { libc::close(fd) };
    }
    println!("cpu {}", spent.as_micros());
    line.clear();
    let _ = stdin.read_line(&mut line);
}

/// The user and system CPU time of this process so far.
#[cfg(unix)]
fn cpu_time() -> Duration {
    // SAFETY: `getrusage` fills the struct it is given.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut usage), 0);
        usage
    };
    let micros = |time: libc::timeval| {
        Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
    };
    micros(usage.ru_utime) + micros(usage.ru_stime)
}

#[test]
#[cfg(unix)]
fn the_accept_loop_backs_off_when_descriptors_run_out() {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["accept_back_off_child", "--exact", "--nocapture"])
        .env(CHILD, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut to_child = child.stdin.take().unwrap();
    let mut from_child = BufReader::new(child.stdout.take().unwrap());
    let mut next_line = |prefix: &str| loop {
        let mut line = String::new();
        assert_ne!(
            from_child.read_line(&mut line).unwrap(),
            0,
            "the child ended"
        );
        if let Some(rest) = line.trim().strip_prefix(prefix) {
            return rest.to_owned();
        }
    };
    let port: u16 = next_line("ready ").parse().unwrap();
    // The connection waits in the backlog: the child cannot accept it while it has no
    // descriptor to spare.
    let mut stream = connect(
        SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_secs(10),
    );
    stream
        .write_all(b"HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    writeln!(to_child, "connected").unwrap();
    let cpu = Duration::from_micros(next_line("cpu ").parse().unwrap());
    let head = read_head(&mut stream);
    drop(to_child);
    let status = child.wait().unwrap();
    assert!(
        cpu < Duration::from_millis(30),
        "the server spent {cpu:?} of CPU in one second while accept failed"
    );
    let head = head.expect("an answer once descriptors are free again");
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head:?}");
    assert!(status.success(), "{status}");
}
