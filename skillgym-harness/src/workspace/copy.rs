//! Copying a workspace template.
//!
//! The walk goes through directory file descriptors (`openat` and friends on a `readdir`
//! stream, whose `d_type` saves a `stat` per entry), so every entry is reached by name inside an
//! already opened directory of the template and never through a symlink. A regular file costs
//! one `open` of the source, an `fstat` of that descriptor, one `open(O_CREAT | O_EXCL)` of the
//! destination with the source's mode, `copy_file_range` (Linux; a buffered copy elsewhere and
//! as fallback) and `futimens` on the open destination, plus an `fchmod` only when the creation
//! mask took bits away: about half the system calls of `cp -a`.

use std::ffi::{CStr, CString, OsStr};
use std::fs::{self, File};
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::io_error::IoError;

/// Copies the directory tree `from` to `to`, like `cp -a from to` minus ownership.
///
/// Everything is copied, dotfiles and `.git` included. Symlinks are recreated with the same
/// target text and never followed, so nothing outside the template is copied in, wherever a
/// link points (only `from` itself may be one: a suite's templates are refused at load when
/// they lead out of the suite). Regular files keep their
/// content, permission bits, access and modification times; directories their permission bits
/// and modification time; FIFOs are recreated. Sockets and device files are skipped; hard links
/// become separate files. `to` is created with its missing parents; an entry already in it is an
/// error, not overwritten. Errors name the offending path.
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    let source = Dir::open(libc::AT_FDCWD, &c_path(from)?, 0).map_err(at(from))?;
    let stat = fstat(source.fd()).map_err(at(from))?;
    let target_path = c_path(to)?;
    if let Some(parent) = to.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(at(parent))?;
    }
    // Created with all permission bits, `to` shows which ones the umask or a default ACL take
    // away from what is created under it.
    // SAFETY: a NUL-terminated path.
    let created = cvt(unsafe { libc::mkdir(target_path.as_ptr(), 0o777) });
    let existed = match created {
        Ok(()) => false,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => true,
        Err(error) => return Err(at(to)(error)),
    };
    let target = open_at(
        libc::AT_FDCWD,
        &target_path,
        libc::O_RDONLY | libc::O_DIRECTORY,
        0,
    )
    .map_err(at(to))?;
    let target_stat = fstat(target.as_raw_fd()).map_err(at(to))?;
    let mut copier = Copier {
        from,
        to,
        relative: PathBuf::new(),
        target_root: (target_stat.st_dev, target_stat.st_ino),
        creation_mask: if existed {
            0o777
        } else {
            !target_stat.st_mode & 0o777
        },
    };
    copier.copy_entries(source, target.as_raw_fd())?;
    finish_dir(target.as_raw_fd(), &stat).map_err(at(to))
}

/// The state of one [`copy_tree`] call.
struct Copier<'a> {
    from: &'a Path,
    to: &'a Path,
    /// The directory being copied, relative to `from` and `to` (for error messages).
    relative: PathBuf,
    /// Device and inode of `to`, so that copying a tree into itself stops.
    target_root: (libc::dev_t, libc::ino_t),
    /// Permission bits that creating a file under `to` may drop (all of them if unknown).
    creation_mask: libc::mode_t,
}

/// What a directory entry is.
enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Other,
}

impl Copier<'_> {
    /// Copies the entries of `source` into the directory `target`.
    fn copy_entries(&mut self, mut source: Dir, target: RawFd) -> io::Result<()> {
        let source_fd = source.fd();
        while let Some((name, d_type)) = source.next().map_err(|e| self.source_error(None, e))? {
            let kind = match d_type {
                libc::DT_REG => Kind::File,
                libc::DT_DIR => Kind::Dir,
                libc::DT_LNK => Kind::Symlink,
                libc::DT_FIFO => Kind::Fifo,
                libc::DT_UNKNOWN => {
                    let stat =
                        lstat_at(source_fd, name).map_err(|e| self.source_error(Some(name), e))?;
                    kind_of(stat.st_mode)
                }
                _ => Kind::Other,
            };
            match kind {
                Kind::File => self.copy_file(source_fd, target, name)?,
                Kind::Dir => self.copy_dir(source_fd, target, name)?,
                Kind::Symlink => self.copy_symlink(source_fd, target, name)?,
                Kind::Fifo => self.copy_fifo(source_fd, target, name)?,
                Kind::Other => {}
            }
        }
        Ok(())
    }

    fn copy_file(&self, source_dir: RawFd, target_dir: RawFd, name: &CStr) -> io::Result<()> {
        let source_error = |e| self.source_error(Some(name), e);
        let target_error = |e| self.target_error(Some(name), e);
        // `O_NONBLOCK`: should the entry have become a FIFO since `readdir`, opening it must not
        // wait for a writer.
        let source = open_at(
            source_dir,
            name,
            libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK,
            0,
        )
        .map_err(source_error)?;
        let stat = fstat(source.as_raw_fd()).map_err(source_error)?;
        if stat.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(source_error(io::Error::other(
                "changed while being copied: no longer a regular file",
            )));
        }
        let mode = stat.st_mode & 0o7777;
        // `O_EXCL` also refuses to write through a symlink planted in the destination.
        let target = open_at(
            target_dir,
            name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL,
            mode,
        )
        .map_err(target_error)?;
        let (source, target) = (File::from(source), File::from(target));
        copy_data(&source, &target, u64::try_from(stat.st_size).unwrap_or(0))
            .map_err(target_error)?;
        if self.needs_chmod(mode) {
            // SAFETY: plain system call on an open descriptor.
            cvt(unsafe { libc::fchmod(target.as_raw_fd(), mode) }).map_err(target_error)?;
        }
        set_times(target.as_raw_fd(), &stat).map_err(target_error)
    }

    fn copy_dir(&mut self, source_dir: RawFd, target_dir: RawFd, name: &CStr) -> io::Result<()> {
        let source = Dir::open(source_dir, name, libc::O_NOFOLLOW)
            .map_err(|e| self.source_error(Some(name), e))?;
        let stat = fstat(source.fd()).map_err(|e| self.source_error(Some(name), e))?;
        if (stat.st_dev, stat.st_ino) == self.target_root {
            return Err(self.source_error(
                Some(name),
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "is the destination: cannot copy a directory into itself",
                ),
            ));
        }
        // Owner-writable while it is being filled; `finish_dir` sets the mode.
        let mode = (stat.st_mode & 0o777) | 0o700;
        // SAFETY: a NUL-terminated name.
        cvt(unsafe { libc::mkdirat(target_dir, name.as_ptr(), mode) })
            .map_err(|e| self.target_error(Some(name), e))?;
        let target = open_at(
            target_dir,
            name,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )
        .map_err(|e| self.target_error(Some(name), e))?;
        self.relative.push(OsStr::from_bytes(name.to_bytes()));
        self.copy_entries(source, target.as_raw_fd())?;
        self.relative.pop();
        finish_dir(target.as_raw_fd(), &stat).map_err(|e| self.target_error(Some(name), e))
    }

    fn copy_symlink(&self, source_dir: RawFd, target_dir: RawFd, name: &CStr) -> io::Result<()> {
        let source_error = |e| self.source_error(Some(name), e);
        let target_error = |e| self.target_error(Some(name), e);
        let stat = lstat_at(source_dir, name).map_err(source_error)?;
        let link = read_link_at(source_dir, name, &stat).map_err(source_error)?;
        // SAFETY: NUL-terminated strings.
        cvt(unsafe { libc::symlinkat(link.as_ptr(), target_dir, name.as_ptr()) })
            .map_err(target_error)?;
        set_times_at(target_dir, name, &stat).map_err(target_error)
    }

    fn copy_fifo(&self, source_dir: RawFd, target_dir: RawFd, name: &CStr) -> io::Result<()> {
        let target_error = |e| self.target_error(Some(name), e);
        let stat = lstat_at(source_dir, name).map_err(|e| self.source_error(Some(name), e))?;
        let mode = stat.st_mode & 0o7777;
        // SAFETY (here and below): a NUL-terminated name.
        cvt(unsafe { libc::mkfifoat(target_dir, name.as_ptr(), mode) }).map_err(target_error)?;
        if self.needs_chmod(mode) {
            cvt(unsafe { libc::fchmodat(target_dir, name.as_ptr(), mode, 0) })
                .map_err(target_error)?;
        }
        set_times_at(target_dir, name, &stat).map_err(target_error)
    }

    /// Whether an entry created with `mode` may not have got it.
    fn needs_chmod(&self, mode: libc::mode_t) -> bool {
        mode & (self.creation_mask | 0o7000) != 0
    }

    /// `error` about `name` in the current directory of the template (or that directory).
    fn source_error(&self, name: Option<&CStr>, error: io::Error) -> io::Error {
        self.error(self.from, name, error)
    }

    /// `error` about `name` in the current directory of the copy.
    fn target_error(&self, name: Option<&CStr>, error: io::Error) -> io::Error {
        self.error(self.to, name, error)
    }

    fn error(&self, root: &Path, name: Option<&CStr>, error: io::Error) -> io::Error {
        let mut path = root.join(&self.relative);
        if let Some(name) = name {
            path.push(OsStr::from_bytes(name.to_bytes()));
        }
        at(&path)(error)
    }
}

fn kind_of(mode: libc::mode_t) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFLNK => Kind::Symlink,
        libc::S_IFIFO => Kind::Fifo,
        _ => Kind::Other,
    }
}

/// Sets the mode and times of a copied directory, once its entries are written.
fn finish_dir(target: RawFd, stat: &libc::stat) -> io::Result<()> {
    // Always: `mkdir` applied the creation mask and may have inherited a set-group-ID bit.
    // SAFETY: plain system call on an open descriptor.
    cvt(unsafe { libc::fchmod(target, stat.st_mode & 0o7777) })?;
    set_times(target, stat)
}

/// Copies `size` bytes (fewer if the file shrank) from `source` to `target`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn copy_data(source: &File, target: &File, size: u64) -> io::Result<()> {
    let mut left = size;
    while left > 0 {
        let chunk = usize::try_from(left).unwrap_or(usize::MAX).min(1 << 30);
        // SAFETY: null offsets make `copy_file_range` use (and advance) both file offsets.
        let copied = unsafe {
            libc::copy_file_range(
                source.as_raw_fd(),
                std::ptr::null_mut(),
                target.as_raw_fd(),
                std::ptr::null_mut(),
                chunk,
                0,
            )
        };
        match u64::try_from(copied) {
            Ok(0) => break,
            Ok(copied) => left = left.saturating_sub(copied),
            Err(_) => {
                let error = io::Error::last_os_error();
                match error.raw_os_error() {
                    Some(libc::EINTR) => {}
                    // Not supported for this pair of files: copy through a buffer from where
                    // both offsets are.
                    Some(
                        libc::ENOSYS
                        | libc::EXDEV
                        | libc::EINVAL
                        | libc::EOPNOTSUPP
                        | libc::EPERM
                        | libc::ETXTBSY,
                    ) => {
                        io::copy(&mut &*source, &mut &*target)?;
                        break;
                    }
                    _ => return Err(error),
                }
            }
        }
    }
    Ok(())
}

/// Copies `source` to `target` through a buffer.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn copy_data(source: &File, target: &File, _size: u64) -> io::Result<()> {
    io::copy(&mut &*source, &mut &*target).map(drop)
}

/// An open directory stream, closed on drop.
struct Dir(std::ptr::NonNull<libc::DIR>);

impl Dir {
    /// Opens the directory `name` in `dir` with extra `open` flags.
    fn open(dir: RawFd, name: &CStr, flags: libc::c_int) -> io::Result<Dir> {
        let fd = open_at(dir, name, libc::O_RDONLY | libc::O_DIRECTORY | flags, 0)?;
        // SAFETY: an open directory descriptor; on success the stream owns it (hence the
        // `forget`), on failure it is closed here.
        let stream = unsafe { libc::fdopendir(fd.as_raw_fd()) };
        match std::ptr::NonNull::new(stream) {
            Some(stream) => {
                std::mem::forget(fd);
                Ok(Dir(stream))
            }
            None => Err(io::Error::last_os_error()),
        }
    }

    fn fd(&self) -> RawFd {
        // SAFETY: the stream is open.
        unsafe { libc::dirfd(self.0.as_ptr()) }
    }

    /// The next entry other than `.` and `..`: its name and `d_type`.
    fn next(&mut self) -> io::Result<Option<(&CStr, u8)>> {
        loop {
            clear_errno();
            // SAFETY: the stream is open; the entry stays valid until the next `readdir` on it,
            // which the mutable borrow in the result prevents.
            let entry = unsafe { libc::readdir(self.0.as_ptr()) };
            if entry.is_null() {
                let error = io::Error::last_os_error();
                return match error.raw_os_error() {
                    Some(0) | None => Ok(None),
                    Some(_) => Err(error),
                };
            }
            // SAFETY: `d_name` is a NUL-terminated string inside the entry.
            let (name, d_type) =
                unsafe { (CStr::from_ptr((*entry).d_name.as_ptr()), (*entry).d_type) };
            if name != c"." && name != c".." {
                return Ok(Some((name, d_type)));
            }
        }
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        // SAFETY: the stream is open and not used again.
        unsafe { libc::closedir(self.0.as_ptr()) };
    }
}

/// Sets `errno` to 0, so that a null `readdir` tells the end of the stream from an error.
fn clear_errno() {
    // SAFETY: the thread's own `errno`.
    #[cfg(any(target_os = "linux", target_os = "hurd"))]
    unsafe {
        *libc::__errno_location() = 0;
    }
    #[cfg(any(target_os = "android", target_os = "netbsd", target_os = "openbsd"))]
    unsafe {
        *libc::__errno() = 0;
    }
    #[cfg(any(target_vendor = "apple", target_os = "freebsd"))]
    unsafe {
        *libc::__error() = 0;
    }
}

fn open_at(dir: RawFd, name: &CStr, flags: libc::c_int, mode: libc::mode_t) -> io::Result<OwnedFd> {
    loop {
        // SAFETY: `name` is NUL-terminated; the mode is read only with `O_CREAT`.
        let fd = unsafe {
            libc::openat(
                dir,
                name.as_ptr(),
                flags | libc::O_CLOEXEC,
                libc::c_uint::from(mode),
            )
        };
        if fd >= 0 {
            // SAFETY: a new descriptor, owned by nobody else.
            return Ok(unsafe { OwnedFd::from_raw_fd(fd) });
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    let mut stat = MaybeUninit::uninit();
    // SAFETY: `fstat` fills `stat` when it succeeds.
    cvt(unsafe { libc::fstat(fd, stat.as_mut_ptr()) })?;
    Ok(unsafe { stat.assume_init() })
}

fn lstat_at(dir: RawFd, name: &CStr) -> io::Result<libc::stat> {
    let mut stat = MaybeUninit::uninit();
    // SAFETY: `fstatat` fills `stat` when it succeeds.
    cvt(unsafe {
        libc::fstatat(
            dir,
            name.as_ptr(),
            stat.as_mut_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    Ok(unsafe { stat.assume_init() })
}

/// The target of the symlink `name` in `dir`, whose `lstat` is `stat`.
fn read_link_at(dir: RawFd, name: &CStr, stat: &libc::stat) -> io::Result<CString> {
    // `st_size` is the target's length, except on some pseudo file systems: grow if needed.
    let mut capacity = usize::try_from(stat.st_size).unwrap_or(0).max(255) + 1;
    loop {
        let mut buffer = Vec::<u8>::with_capacity(capacity);
        // SAFETY: `readlinkat` writes at most `capacity` bytes into the buffer.
        let length =
            unsafe { libc::readlinkat(dir, name.as_ptr(), buffer.as_mut_ptr().cast(), capacity) };
        let Ok(length) = usize::try_from(length) else {
            return Err(io::Error::last_os_error());
        };
        if length < capacity {
            // SAFETY: `readlinkat` initialized `length` bytes.
            unsafe { buffer.set_len(length) };
            return CString::new(buffer).map_err(io::Error::other);
        }
        capacity *= 2;
    }
}

/// Access and modification times of `stat`, for `futimens` and `utimensat`.
fn times(stat: &libc::stat) -> [libc::timespec; 2] {
    // SAFETY: all-zero is a valid `timespec` (whatever padding fields the target has).
    let mut times: [libc::timespec; 2] = unsafe { std::mem::zeroed() };
    times[0].tv_sec = stat.st_atime;
    times[0].tv_nsec = stat.st_atime_nsec as _;
    times[1].tv_sec = stat.st_mtime;
    times[1].tv_nsec = stat.st_mtime_nsec as _;
    times
}

fn set_times(fd: RawFd, stat: &libc::stat) -> io::Result<()> {
    // SAFETY: two `timespec`s, as `futimens` reads.
    cvt(unsafe { libc::futimens(fd, times(stat).as_ptr()) })
}

fn set_times_at(dir: RawFd, name: &CStr, stat: &libc::stat) -> io::Result<()> {
    // SAFETY: a NUL-terminated name and two `timespec`s, as `utimensat` reads.
    cvt(unsafe {
        libc::utimensat(
            dir,
            name.as_ptr(),
            times(stat).as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })
}

fn cvt(result: libc::c_int) -> io::Result<()> {
    if result == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        at(path)(io::Error::new(
            io::ErrorKind::InvalidInput,
            "contains a NUL byte",
        ))
    })
}

/// Prefixes an error with `path`.
fn at(path: &Path) -> impl Fn(io::Error) -> io::Error + '_ {
    move |source| {
        IoError::At {
            path: path.to_path_buf(),
            source,
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt, symlink};
    use std::time::{Duration, SystemTime};

    /// A fresh directory under the system temp directory, removed on drop.
    struct Temp(tempfile::TempDir);

    impl Temp {
        fn new(test: &str) -> Temp {
            let dir = tempfile::Builder::new()
                .prefix(&format!("skillgym-copy-{test}-"))
                .tempdir()
                .unwrap();
            Temp(dir)
        }

        fn path(&self, relative: &str) -> PathBuf {
            self.0.path().join(relative)
        }
    }

    fn write(path: &Path, content: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn mode(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().mode() & 0o7777
    }

    #[test]
    fn copies_dotfiles_git_and_nested_directories() {
        let temp = Temp::new("tree");
        let (from, to) = (temp.path("template"), temp.path("out/workspace"));
        let files = [
            (".env", "KEY=value\n"),
            (".gitignore", "target/\n"),
            (".git/HEAD", "ref: refs/heads/main\n"),
            (".git/config", "[core]\n"),
            (".git/refs/heads/main", "0123456789abcdef\n"),
            (".git/objects/ab/cdef0123", "blob"),
            ("src/a/b/c/deep.rs", "fn deep() {}\n"),
            ("empty", ""),
        ];
        for (path, content) in files {
            write(&from.join(path), content);
        }
        fs::create_dir_all(from.join(".git/refs/tags")).unwrap();

        copy_tree(&from, &to).unwrap();

        for (path, content) in files {
            assert_eq!(
                fs::read_to_string(to.join(path)).unwrap(),
                content,
                "{path}"
            );
        }
        assert!(to.join(".git/refs/tags").is_dir());
        let names = |dir: &Path| {
            let mut names: Vec<_> = fs::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(&to), names(&from));
        assert_eq!(names(&to.join(".git")), names(&from.join(".git")));
    }

    #[test]
    fn keeps_permission_bits() {
        let temp = Temp::new("modes");
        let (from, to) = (temp.path("template"), temp.path("workspace"));
        for (name, mode) in [("run.sh", 0o755), ("secret", 0o600), ("shared", 0o666)] {
            write(&from.join(name), "x");
            fs::set_permissions(from.join(name), fs::Permissions::from_mode(mode)).unwrap();
        }
        write(&from.join("objects/blob"), "x");
        fs::set_permissions(from.join("objects/blob"), fs::Permissions::from_mode(0o444)).unwrap();
        // Read-only directory: its file must still be copied into it.
        fs::set_permissions(from.join("objects"), fs::Permissions::from_mode(0o555)).unwrap();
        fs::set_permissions(&from, fs::Permissions::from_mode(0o750)).unwrap();

        let result = copy_tree(&from, &to);
        let modes = ["run.sh", "secret", "shared", "objects/blob", "objects", ""]
            .map(|name| mode(&to.join(name)));
        for dir in [&from, &to] {
            let _ = fs::set_permissions(dir.join("objects"), fs::Permissions::from_mode(0o755));
        }
        result.unwrap();
        assert_eq!(modes, [0o755, 0o600, 0o666, 0o444, 0o555, 0o750]);
        assert_eq!(fs::read_to_string(to.join("objects/blob")).unwrap(), "x");
    }

    #[test]
    fn preserves_file_and_directory_times() {
        let temp = Temp::new("times");
        let (from, to) = (temp.path("template"), temp.path("workspace"));
        let accessed = SystemTime::UNIX_EPOCH + Duration::new(1_500_000_000, 123_456_789);
        let modified = SystemTime::UNIX_EPOCH + Duration::new(1_400_000_000, 987_654_321);
        let dir_modified = SystemTime::UNIX_EPOCH + Duration::new(1_300_000_000, 5);
        write(&from.join("sub/file.txt"), "old");
        File::options()
            .write(true)
            .open(from.join("sub/file.txt"))
            .unwrap()
            .set_times(
                fs::FileTimes::new()
                    .set_accessed(accessed)
                    .set_modified(modified),
            )
            .unwrap();
        File::open(from.join("sub"))
            .unwrap()
            .set_times(fs::FileTimes::new().set_modified(dir_modified))
            .unwrap();

        copy_tree(&from, &to).unwrap();

        let file = fs::metadata(to.join("sub/file.txt")).unwrap();
        assert_eq!(file.modified().unwrap(), modified);
        assert_eq!(file.accessed().unwrap(), accessed);
        let dir = fs::metadata(to.join("sub")).unwrap();
        assert_eq!(dir.modified().unwrap(), dir_modified);
        assert_eq!(
            fs::metadata(&to).unwrap().modified().unwrap(),
            fs::metadata(&from).unwrap().modified().unwrap()
        );
    }

    #[test]
    fn copies_symlinks_as_links_without_following_them() {
        let temp = Temp::new("links");
        let (from, to) = (temp.path("template"), temp.path("workspace"));
        let outside = temp.path("outside");
        write(&outside.join("secret"), "outside the template");
        write(&from.join("sub/file"), "inside");
        let links = [
            ("relative", PathBuf::from("sub/file")),
            ("sub/up", PathBuf::from("../relative")),
            ("absolute", outside.join("secret")),
            ("outside_dir", outside.clone()),
            ("dangling", PathBuf::from("does/not/exist")),
            ("dir_link", PathBuf::from("sub")),
        ];
        for (link, target) in &links {
            symlink(target, from.join(link)).unwrap();
        }

        copy_tree(&from, &to).unwrap();

        for (link, target) in &links {
            let copy = to.join(link);
            assert!(
                fs::symlink_metadata(&copy)
                    .unwrap()
                    .file_type()
                    .is_symlink(),
                "{link} is not a symlink"
            );
            assert_eq!(&fs::read_link(&copy).unwrap(), target, "{link}");
        }
        // Not recursed into: the links to directories are not directories in the copy, and the
        // template's directory was copied exactly once.
        assert_eq!(fs::read_dir(to.join("sub")).unwrap().count(), 2);
        assert_eq!(fs::read_to_string(to.join("relative")).unwrap(), "inside");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
    }

    #[test]
    fn recreates_fifos_without_opening_them_and_skips_sockets() {
        let temp = Temp::new("fifo");
        let (from, to) = (temp.path("template"), temp.path("workspace"));
        write(&from.join("file"), "x");
        let fifo = c_path(&from.join("pipe")).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o640) }, 0);
        let _socket = std::os::unix::net::UnixListener::bind(from.join("socket")).unwrap();

        // On a thread, so that a copier blocked on the FIFO fails the test instead of hanging.
        let (sender, receiver) = std::sync::mpsc::channel();
        let (from_, to_) = (from.clone(), to.clone());
        std::thread::spawn(move || sender.send(copy_tree(&from_, &to_)));
        receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("copy_tree blocked on the FIFO")
            .unwrap();

        let pipe = fs::symlink_metadata(to.join("pipe")).unwrap();
        assert!(pipe.file_type().is_fifo());
        assert_eq!(pipe.mode() & 0o7777, 0o640);
        assert!(fs::symlink_metadata(to.join("socket")).is_err());
        assert_eq!(fs::read_to_string(to.join("file")).unwrap(), "x");
    }

    #[test]
    fn errors_name_the_path() {
        let temp = Temp::new("errors");
        let missing = temp.path("missing");
        let to = temp.path("workspace");
        let error = copy_tree(&missing, &to).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
        assert!(
            error.to_string().contains(&*missing.to_string_lossy()),
            "{error}"
        );
        assert!(!to.exists());

        // An entry already in the destination is not overwritten.
        let from = temp.path("template");
        write(&from.join("sub/file"), "new");
        write(&to.join("sub/file"), "old");
        let error = copy_tree(&from, &to).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert!(
            error
                .to_string()
                .contains(&*to.join("sub").to_string_lossy()),
            "{error}"
        );
        assert_eq!(fs::read_to_string(to.join("sub/file")).unwrap(), "old");
    }

    #[test]
    fn refuses_to_copy_a_directory_into_itself() {
        let temp = Temp::new("itself");
        let from = temp.path("template");
        write(&from.join("file"), "x");
        let error = copy_tree(&from, &from.join("copy")).unwrap_err();
        assert!(error.to_string().contains("into itself"), "{error}");
    }
}
