//! The index is used only while everything its suite's loading depended on is unchanged.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::*;
use crate::suite::yaml::load_suite;

/// A suite of three discovered cases (one with its own id, tags and runners), a directory
/// without a case file, and a config file; everything dated a minute ago, as a suite written
/// before the run began is.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    config: PathBuf,
    cache: IndexCache,
}

fn write_old(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    fs::write(path, text).expect("write");
    age(path);
}

/// Dates `path` a minute back, so that it is not racy against a load starting now.
fn age(path: &Path) {
    let then = SystemTime::now() - Duration::from_secs(60);
    let file = fs::File::options().read(true).open(path).expect("open");
    file.set_modified(then).expect("set mtime");
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("suite");
        write_old(
            &root.join("EVAL.yaml"),
            "name: s\nassertions:\n  - {type: contains, value: x}\ntests: ./cases/\n",
        );
        write_old(&root.join("cases/a/case.yaml"), "input: a\ncriteria: ok\n");
        write_old(
            &root.join("cases/b/case.yaml"),
            "id: bee\ninput: b\ncriteria: ok\ntags: [t1]\nrunners: [x]\n",
        );
        write_old(
            &root.join("cases/c/case.yaml"),
            "input: c\ncriteria: ok\nsamples: 4\n",
        );
        fs::create_dir_all(root.join("cases/empty")).expect("mkdir");
        let config = dir.path().join("skillgym.yaml");
        write_old(&config, "runners: {}\n");
        for dir in ["cases/a", "cases/b", "cases/c", "cases/empty", "cases", ""] {
            age(&root.join(dir));
        }
        let cache = IndexCache::new(dir.path().join("index"), Some(config.clone()));
        Fixture {
            _dir: dir,
            root,
            config,
            cache,
        }
    }

    /// Loads the suite whole and writes its index. The files' last changes (setting a time
    /// changes the change time too) must be a clock tick older than the load for it to be
    /// written, so it waits one first.
    fn index(&self) {
        std::thread::sleep(Duration::from_millis(50));
        let pending = self.cache.begin(&self.root).expect("a writable cache");
        let loaded = load_suite(&self.root, &|_| None).expect("a valid suite");
        pending.finish(&loaded, &[]);
    }

    fn fresh_ids(&self) -> Option<Vec<String>> {
        let indexed = self.cache.fresh(&self.root, None)?;
        Some(indexed.cases.into_iter().map(|case| case.id).collect())
    }
}

#[test]
fn a_fresh_index_gives_each_discovered_case_s_plan_fields_and_the_warnings() {
    let fixture = Fixture::new();
    assert!(fixture.fresh_ids().is_none(), "nothing indexed yet");
    fixture.index();
    let indexed = fixture.cache.fresh(&fixture.root, None).expect("fresh");
    let whole = load_suite(&fixture.root, &|_| None).expect("valid");
    assert_eq!(indexed.cases.len(), 3);
    for (stub, case) in indexed.cases.iter().zip(&whole.suite.cases) {
        assert!(stub.stub && !case.stub);
        assert_eq!(
            (&stub.id, &stub.file, stub.line, &stub.dir, &stub.tags),
            (&case.id, &case.file, case.line, &case.dir, &case.tags)
        );
        assert_eq!((stub.samples, &stub.runners), (case.samples, &case.runners));
    }
    assert_eq!(
        indexed.warnings, whole.warnings,
        "the skipped directory's warning"
    );
    assert_eq!(indexed.warnings.len(), 1);
}

#[test]
fn a_focus_keeps_only_the_cases_it_names() {
    let fixture = Fixture::new();
    fixture.index();
    let only_bee = |id: &str| id == "bee";
    let indexed = fixture
        .cache
        .fresh(&fixture.root, Some(&only_bee))
        .expect("fresh");
    let ids: Vec<&str> = indexed.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["bee"]);
}

#[test]
fn an_edited_case_file_makes_the_index_stale() {
    let fixture = Fixture::new();
    fixture.index();
    fs::write(
        fixture.root.join("cases/a/case.yaml"),
        "input: changed\ncriteria: ok\n",
    )
    .expect("edit");
    assert_eq!(fixture.fresh_ids(), None);
    fixture.index();
    assert_eq!(fixture.fresh_ids().expect("rebuilt").len(), 3);
}

#[test]
fn an_edit_keeping_size_and_time_is_seen_by_its_change_time() {
    let fixture = Fixture::new();
    fixture.index();
    let file = fixture.root.join("cases/a/case.yaml");
    // Same length, and the modification time put back: only the change time moves.
    fs::write(&file, "input: z\ncriteria: ok\n").expect("edit");
    age(&file);
    assert_eq!(fixture.fresh_ids(), None);
}

#[test]
fn a_focused_process_sees_its_own_case_edited_and_not_the_others() {
    let fixture = Fixture::new();
    fixture.index();
    fs::write(
        fixture.root.join("cases/c/case.yaml"),
        "input: other\ncriteria: ok\n",
    )
    .expect("edit c");
    let only_a = |id: &str| id == "a";
    assert!(fixture.cache.fresh(&fixture.root, Some(&only_a)).is_some());
    let only_c = |id: &str| id == "c";
    assert!(fixture.cache.fresh(&fixture.root, Some(&only_c)).is_none());
}

#[test]
fn an_added_or_removed_case_directory_makes_the_index_stale() {
    let fixture = Fixture::new();
    fixture.index();
    fs::create_dir(fixture.root.join("cases/d")).expect("add d");
    fs::write(
        fixture.root.join("cases/d/case.yaml"),
        "input: d\ncriteria: ok\n",
    )
    .expect("write d");
    assert_eq!(fixture.fresh_ids(), None, "a case added");
    fixture.index();
    assert_eq!(fixture.fresh_ids().expect("rebuilt").len(), 4);
    fs::remove_dir_all(fixture.root.join("cases/a")).expect("remove a");
    assert_eq!(fixture.fresh_ids(), None, "a case removed");
    fixture.index();
    let ids = fixture.fresh_ids().expect("rebuilt");
    assert_eq!(ids, ["bee", "c", "d"]);
}

#[test]
fn a_removed_case_file_is_seen_even_by_a_focused_process() {
    let fixture = Fixture::new();
    fixture.index();
    fs::remove_file(fixture.root.join("cases/a/case.yaml")).expect("remove");
    let only_a = |id: &str| id == "a";
    assert!(fixture.cache.fresh(&fixture.root, Some(&only_a)).is_none());
}

#[test]
fn a_case_file_appearing_in_a_directory_without_one_makes_the_index_stale() {
    let fixture = Fixture::new();
    fixture.index();
    fs::write(
        fixture.root.join("cases/empty/case.yaml"),
        "input: e\ncriteria: ok\n",
    )
    .expect("write");
    assert_eq!(fixture.fresh_ids(), None);
}

#[test]
fn a_changed_suite_file_or_config_makes_the_index_stale() {
    let fixture = Fixture::new();
    fixture.index();
    fs::write(
        fixture.root.join("EVAL.yaml"),
        "name: s2\ntests: ./cases/\n",
    )
    .expect("edit");
    assert_eq!(fixture.fresh_ids(), None, "the suite file");
    fixture.index();
    assert!(fixture.fresh_ids().is_some());
    fs::write(&fixture.config, "runners: {}\n# edited\n").expect("edit config");
    assert_eq!(fixture.fresh_ids(), None, "skillgym.yaml");
    fixture.index();
    assert!(fixture.fresh_ids().is_some());
    let other_config = IndexCache::new(fixture.cache.dir.clone(), None);
    assert!(
        other_config.fresh(&fixture.root, None).is_none(),
        "another config, another index"
    );
}

#[test]
fn an_environment_variable_the_suite_reads_is_recorded() {
    let fixture = Fixture::new();
    let name = "SKILLGYM_INDEX_TEST_UNSET_VARIABLE";
    // SAFETY: this test alone reads or writes this variable.
    unsafe { std::env::remove_var(name) };
    std::thread::sleep(Duration::from_millis(50));
    let pending = fixture.cache.begin(&fixture.root).expect("cache");
    let loaded = load_suite(&fixture.root, &|_| None).expect("valid");
    pending.finish(&loaded, &[(name.to_owned(), None)]);
    assert!(fixture.fresh_ids().is_some());
    // SAFETY: as above.
    unsafe { std::env::set_var(name, "now set") };
    assert_eq!(fixture.fresh_ids(), None);
    unsafe { std::env::remove_var(name) };
}

#[test]
fn a_file_written_after_the_load_began_is_never_indexed() {
    let fixture = Fixture::new();
    std::thread::sleep(Duration::from_millis(50));
    let pending = fixture.cache.begin(&fixture.root).expect("cache");
    let loaded = load_suite(&fixture.root, &|_| None).expect("valid");
    // Written while the load ran: its stamp proves nothing about what was read.
    fs::write(
        fixture.root.join("cases/a/case.yaml"),
        "input: a\ncriteria: ok\n",
    )
    .expect("rewrite");
    pending.finish(&loaded, &[]);
    assert_eq!(fixture.fresh_ids(), None);
    let leftovers: Vec<_> = fs::read_dir(&fixture.cache.dir)
        .expect("cache dir")
        .filter_map(Result::ok)
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file is left: {leftovers:?}"
    );
}

#[test]
fn an_index_of_another_format_or_a_damaged_one_is_not_used() {
    let fixture = Fixture::new();
    fixture.index();
    let path = fixture.cache.path_of(&fixture.root);
    let text = fs::read_to_string(&path).expect("index");
    fs::write(
        &path,
        text.replacen("skillgym-suite-index\t1", "skillgym-suite-index\t0", 1),
    )
    .expect("rewrite");
    assert_eq!(fixture.fresh_ids(), None, "another version");
    let cut = &text[..text.len() - 20];
    fs::write(&path, cut).expect("cut");
    assert_eq!(fixture.fresh_ids(), None, "a cut record");
}

#[test]
fn writing_an_index_removes_those_of_suites_that_are_gone() {
    let gone = Fixture::new();
    let kept = Fixture::new();
    let cache =
        |fixture: &Fixture| IndexCache::new(kept.cache.dir.clone(), Some(fixture.config.clone()));
    let index_into_kept_dir = |fixture: &Fixture| {
        std::thread::sleep(Duration::from_millis(50));
        let pending = cache(fixture).begin(&fixture.root).expect("cache");
        pending.finish(&load_suite(&fixture.root, &|_| None).expect("valid"), &[]);
    };
    index_into_kept_dir(&gone);
    let gone_index = cache(&gone).path_of(&gone.root);
    assert!(gone_index.is_file());
    fs::remove_dir_all(&gone.root).expect("remove the suite");
    index_into_kept_dir(&kept);
    assert!(!gone_index.exists(), "the gone suite's index is removed");
    assert!(
        cache(&kept).fresh(&kept.root, None).is_some(),
        "the other stays"
    );
}
