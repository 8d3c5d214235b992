//! Benchmark (not a timed test) of `skillgym_harness::workspace::copy_tree`, the copy of a
//! workspace template into a fresh per-attempt workspace, against `cp -a`.
//!
//! The template has 20,000 regular files of 50 B .. 8 KiB (log-uniform sizes) in 201
//! directories: a `.git`-like tree (hooks, refs, logs, 64 fan-out directories of read-only loose
//! objects) and a three-level source tree, with dotfiles, executables and a few symlinks
//! (relative, to a directory, absolute, dangling). It is built under `<target dir>/bench-tmp/`,
//! not in `/tmp` (possibly a tmpfs), so that both tools copy on the file system of a real run.
//!
//! Target: the median wall time of `copy_tree` is at most 1.5x the median wall time of
//! `cp -a <template> <dest>` (spawned as a process, so its exec is included: about 1 ms).
//!
//! Run it with
//!
//! ```text
//! cargo bench -p skillgym-harness --bench copy
//! ```
//!
//! (release profile). `SKILLGYM_BENCH_RUNS=<n>` changes the number of measured runs per tool
//! (default 10, after 1 warm-up run each, whose copy is checked against the template: kinds,
//! modes, sizes, mtimes, symlink targets). Runs alternate between the tools, and which one goes
//! first; the file systems are synced before each run, untimed. Arguments (cargo bench passes
//! `--bench`) are ignored.
//!
//! Every run copies into a new directory, and all of them are removed at the end (about 90 MB
//! and 20,000 inodes per run), not between runs: on ext4 without a journal (this machine's root
//! file system) the inode allocator skips inodes freed in the last 5 minutes
//! (`recently_deleted`), scanning past all of them on every file creation, which made a copy
//! right after removing the previous one 10-20x slower, for both tools. For the same reason the
//! scratch directory is marked `chattr +T` (Linux), so that the template and each copy start in
//! their own block group. Copies that still land in a recently emptied group (say, within 5
//! minutes of a previous invocation) show up as multi-second outliers; hence the medians, and
//! the ratio of minimums printed as well.

use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use skillgym_harness::workspace::copy_tree;

const FILES: usize = 20_000;
const OBJECT_DIRS: usize = 64;
const OBJECTS: usize = 6_000;
const DEFAULT_RUNS: usize = 10;
const TARGET_RATIO: f64 = 1.5;
const TOOLS: [&str; 2] = ["copy_tree", "cp -a"];

fn main() -> ExitCode {
    let runs = std::env::var("SKILLGYM_BENCH_RUNS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_RUNS);
    let scratch = Scratch::new();
    let pid = std::process::id();
    let template = scratch.0.join(format!("template-{pid}"));
    let shape = build_template(&template).expect("build the template");
    println!(
        "copy_tree benchmark: {} files ({:.1} MiB), {} directories, {} symlinks; 1 warm-up + {runs} measured runs per tool",
        shape.files,
        shape.bytes as f64 / (1024.0 * 1024.0),
        shape.dirs,
        shape.symlinks,
    );
    println!("template: {}", template.display());
    println!();

    let mut count = 0;
    // One run of tool `tool` into a new directory; `check` compares the copy with the template.
    let mut run = |tool: usize, check: bool| -> Duration {
        count += 1;
        // Distinct names across runs and invocations: ext4 picks a `+T` child's block group from
        // a hash of its name.
        let dest = scratch.0.join(format!("run-{pid}-{count}"));
        // SAFETY: `sync` has no preconditions.
        unsafe { libc::sync() };
        let started = Instant::now();
        copy(tool, &template, &dest);
        let elapsed = started.elapsed();
        if check {
            let (expected, actual) = (snapshot(&template), snapshot(&dest));
            if let Some(difference) = expected.iter().zip(&actual).find(|(e, a)| e != a) {
                panic!(
                    "{}: the copy differs from the template: {difference:?}",
                    TOOLS[tool]
                );
            }
            assert_eq!(expected.len(), actual.len(), "{}: entry count", TOOLS[tool]);
        }
        elapsed
    };
    for tool in 0..TOOLS.len() {
        run(tool, true);
    }
    let mut times = [Vec::with_capacity(runs), Vec::with_capacity(runs)];
    for i in 0..runs {
        for tool in [i % 2, 1 - i % 2] {
            times[tool].push(run(tool, false));
        }
    }

    println!(
        "{:<12} {:>9} {:>9} {:>9}",
        "tool (ms)", "min", "median", "max"
    );
    let (mut mins, mut medians) = ([0.0; 2], [0.0; 2]);
    for (tool, times) in times.iter_mut().enumerate() {
        times.sort();
        mins[tool] = ms(times[0]);
        medians[tool] = ms(times[(times.len() - 1) / 2]);
        println!(
            "{:<12} {:>9.1} {:>9.1} {:>9.1}",
            TOOLS[tool],
            mins[tool],
            medians[tool],
            ms(times[times.len() - 1]),
        );
    }
    let ratio = medians[0] / medians[1];
    let verdict = if ratio <= TARGET_RATIO {
        "PASS"
    } else {
        "FAIL"
    };
    println!();
    println!("median copy_tree / median cp -a = {ratio:.2} (target <= {TARGET_RATIO}): {verdict}");
    println!(
        "min copy_tree / min cp -a = {:.2} (robust to the outliers described at the top)",
        mins[0] / mins[1]
    );
    ExitCode::SUCCESS
}

/// Copies `from` to `to` (which does not exist) with tool number `tool` of [`TOOLS`].
fn copy(tool: usize, from: &Path, to: &Path) {
    if tool == 0 {
        copy_tree(from, to).expect("copy_tree");
    } else {
        let status = Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(to)
            .stdin(Stdio::null())
            .status()
            .expect("spawn cp");
        assert!(status.success(), "cp -a exited with {status}");
    }
}

/// What the template holds.
#[derive(Default)]
struct Shape {
    files: usize,
    bytes: u64,
    dirs: usize,
    symlinks: usize,
}

/// Writes the template (see the top of the file) at `root`.
fn build_template(root: &Path) -> io::Result<Shape> {
    let mut shape = Shape::default();
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    let text = b"abcdefghijklmnopqrstuvwxyz0123456789 {}();\n";
    let filler: Vec<u8> = (0..16_384)
        .map(|i| text[(i * 7 + i / 43) % text.len()])
        .collect();
    let file = |shape: &mut Shape, rng: &mut Rng, path: PathBuf, mode: u32| {
        let size = rng.size();
        let start = rng.below(filler.len() - size);
        fs::write(&path, &filler[start..start + size])?;
        fs::set_permissions(&path, fs::Permissions::from_mode(mode))?;
        shape.files += 1;
        shape.bytes += size as u64;
        io::Result::Ok(())
    };
    let dir = |shape: &mut Shape, path: PathBuf| {
        fs::create_dir(&path)?;
        shape.dirs += 1;
        io::Result::Ok(path)
    };

    let root = dir(&mut shape, root.to_path_buf())?;
    // The `.git`-like tree.
    let git = dir(&mut shape, root.join(".git"))?;
    for name in [
        "HEAD",
        "config",
        "description",
        "index",
        "packed-refs",
        "COMMIT_EDITMSG",
    ] {
        file(&mut shape, &mut rng, git.join(name), 0o644)?;
    }
    let hooks = dir(&mut shape, git.join("hooks"))?;
    for i in 0..12 {
        file(
            &mut shape,
            &mut rng,
            hooks.join(format!("hook-{i}.sample")),
            0o755,
        )?;
    }
    let info = dir(&mut shape, git.join("info"))?;
    file(&mut shape, &mut rng, info.join("exclude"), 0o644)?;
    let refs = dir(&mut shape, git.join("refs"))?;
    let heads = dir(&mut shape, refs.join("heads"))?;
    file(&mut shape, &mut rng, heads.join("main"), 0o644)?;
    let tags = dir(&mut shape, refs.join("tags"))?;
    file(&mut shape, &mut rng, tags.join("v0.1.0"), 0o644)?;
    let logs = dir(&mut shape, git.join("logs"))?;
    file(&mut shape, &mut rng, logs.join("HEAD"), 0o644)?;
    let log_refs = dir(&mut shape, logs.join("refs"))?;
    let log_heads = dir(&mut shape, log_refs.join("heads"))?;
    file(&mut shape, &mut rng, log_heads.join("main"), 0o644)?;
    let objects = dir(&mut shape, git.join("objects"))?;
    dir(&mut shape, objects.join("info"))?;
    dir(&mut shape, objects.join("pack"))?;
    let fan_out = (0..OBJECT_DIRS)
        .map(|i| dir(&mut shape, objects.join(format!("{:02x}", i * 4))))
        .collect::<io::Result<Vec<_>>>()?;
    for i in 0..OBJECTS {
        let name = format!("{:016x}{i:06x}{:016x}", rng.next_u64(), rng.next_u64());
        file(
            &mut shape,
            &mut rng,
            fan_out[i % OBJECT_DIRS].join(name),
            0o444,
        )?;
    }

    // The working tree: 4 x 5 x 5 directories, dotfiles, scripts.
    for name in [
        ".gitignore",
        ".editorconfig",
        ".env.example",
        "README.md",
        "Cargo.toml",
    ] {
        file(&mut shape, &mut rng, root.join(name), 0o644)?;
    }
    let mut leaves = Vec::new();
    for top in ["src", "tests", "docs", "assets"] {
        let top = dir(&mut shape, root.join(top))?;
        file(&mut shape, &mut rng, top.join(".gitignore"), 0o644)?;
        for i in 0..5 {
            let middle = dir(&mut shape, top.join(format!("module_{i}")))?;
            file(&mut shape, &mut rng, middle.join("mod.rs"), 0o644)?;
            for j in 0..5 {
                leaves.push(dir(&mut shape, middle.join(format!("part_{j}")))?);
            }
        }
    }
    let mut i = 0;
    while shape.files < FILES {
        let (name, mode) = match i % 50 {
            0 => (format!(".hidden_{i}"), 0o644),
            1 => (format!("run_{i}.sh"), 0o755),
            _ => (format!("file_{i}.rs"), 0o644),
        };
        file(
            &mut shape,
            &mut rng,
            leaves[i % leaves.len()].join(name),
            mode,
        )?;
        i += 1;
    }

    for (target, link) in [
        ("src/module_0/mod.rs", "main.rs"),
        ("src/module_1", "current"),
        ("/etc/hostname", "host"),
        ("does/not/exist", "dangling"),
        ("../module_0/mod.rs", "src/module_1/sibling.rs"),
    ] {
        symlink(target, root.join(link))?;
        shape.symlinks += 1;
    }
    Ok(shape)
}

/// One entry of a [`snapshot`]: relative path, mode, size, mtime (s, ns), symlink target.
type Entry = (PathBuf, u32, u64, i64, i64, Option<PathBuf>);

/// Every entry under `root`, sorted by path.
fn snapshot(root: &Path) -> Vec<Entry> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Entry>) {
        for entry in fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("directory entry").path();
            let meta = fs::symlink_metadata(&path).expect("lstat");
            let kind = meta.file_type();
            if kind.is_dir() {
                walk(root, &path, out);
            }
            out.push((
                path.strip_prefix(root).expect("under root").to_path_buf(),
                meta.mode(),
                if kind.is_file() { meta.len() } else { 0 },
                meta.mtime(),
                meta.mtime_nsec(),
                kind.is_symlink()
                    .then(|| fs::read_link(&path).expect("readlink")),
            ));
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A file size from 50 B to 8 KiB, log-uniform (most files small).
    fn size(&mut self) -> usize {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        (50.0 * (8192.0f64 / 50.0).powf(unit)) as usize
    }
}

/// `<target dir>/bench-tmp/copy-<pid>`, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let dir = target_dir()
            .join("bench-tmp")
            .join(format!("copy-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the scratch directory");
        spread_subdirectories(&dir);
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Cargo's target directory: the ancestor of this executable holding `CACHEDIR.TAG`, else
/// `CARGO_TARGET_DIR`, else `target`.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    if let Some(dir) = exe
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
    {
        return dir.to_path_buf();
    }
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from)
}

/// `chattr +T dir`: ext2/3/4 then spread the subdirectories of `dir` over block groups, as for
/// top-level directories. Best effort.
#[cfg(target_os = "linux")]
fn spread_subdirectories(dir: &Path) {
    use std::os::fd::AsRawFd;
    const FS_TOPDIR_FL: libc::c_int = 0x0002_0000;
    let Ok(file) = fs::File::open(dir) else {
        return;
    };
    let mut flags: libc::c_int = 0;
    // SAFETY: FS_IOC_GETFLAGS and FS_IOC_SETFLAGS read or write one int through the pointer.
    unsafe {
        if libc::ioctl(file.as_raw_fd(), libc::FS_IOC_GETFLAGS, &mut flags) == 0 {
            flags |= FS_TOPDIR_FL;
            libc::ioctl(file.as_raw_fd(), libc::FS_IOC_SETFLAGS, &flags);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn spread_subdirectories(_dir: &Path) {}
