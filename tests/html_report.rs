//! The `html` reporter in a real browser: the example suite runs with `--reporter html`, and its
//! `report.html` is opened in headless Chromium inside a network namespace that has no network
//! (`unshare -n`), with Chromium's background networking off.
//!
//! | check | how |
//! |---|---|
//! | the page shows the run | `--dump-dom`: a section per execution (`[careful] always_passes`), the case × runner matrix with its links and empty cells, the per-runner table, a session per attempt |
//! | it renders | `--screenshot` at 1280×4000, kept as `target/e2e-artifacts/html-report/report.png` (with `report.html` and `dom.html`) |
//! | it loads cleanly | `--enable-logging=stderr`: no `CONSOLE` line (the page's script logs nothing, so any message is the browser's complaint, such as a blocked load or a script the CSP refused); a probe page first proves that console errors are captured |
//! | it is self-contained | no `src=` or `href=` to a remote URL, no stylesheet link, image, frame, font or import, no script but the page's own (its data blocks and one inline script, allowed by its hash), no `on…=` attribute |
//! | it scales | a report of 10,000 executions (`skillgym_e2e::big_runs`, 2 partitions merged by `cargo skillgym report`): the counts and the runners first, the list's first page failures only, 50 rows; opened with a fragment (`#status=failed&runner=codex&q=…`) it shows only the planted failure; with `#status=failed&runner=codex` the failures of that runner, counted; with `#exec:<case>:<runner>` that execution's section expanded; no console message |
//! | the experiment section | a run with variants (written as `result.json` files, reported by `cargo skillgym report --reporter html`): `#experiment` with a part per runner, every dot (SVG `circle`) and bar (`rect`) parsed into the DOM inside its `svg`, hurts first, the anchors unique; a screenshot; no console message (a CSP violation would log one) |
//!
//! Chromium (`apt-get install chromium`, as `.ci/run` does) and `unshare` are required: without
//! them the test fails, saying what is missing.

use std::fs;
use std::io::Read as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use skillgym_e2e::{
    big_runs, cargo_skillgym, run_examples, stderr, stdout, temp_dir, workspace_root,
};

/// How long one Chromium run may take.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(120);

/// Every execution of the example suite, with its expected status.
const EXECUTIONS: [(&str, &str, &str); 14] = [
    ("careful", "always_passes", "passed"),
    ("hasty", "always_passes", "passed"),
    (
        "careful",
        "known_gap_explicit_skill_load",
        "expected-failed",
    ),
    ("hasty", "known_gap_explicit_skill_load", "expected-failed"),
    ("careful", "showcase::appends-changelog", "passed"),
    ("hasty", "showcase::appends-changelog", "passed"),
    ("careful", "showcase::finds-expo-skill", "passed"),
    ("careful", "showcase::greets", "passed"),
    ("hasty", "showcase::greets", "passed"),
    ("careful", "skills::find_skills_expo", "passed"),
    ("careful", "skills::suggests_install_command", "passed"),
    ("hasty", "skills::suggests_install_command", "passed"),
    ("careful", "summarizes_from_prompt_file", "passed"),
    ("hasty", "summarizes_from_prompt_file", "passed"),
];

/// Where the screenshot and the page are kept after the test (never deleted by it).
fn artifacts_dir() -> PathBuf {
    workspace_root()
        .join("target")
        .join("e2e-artifacts")
        .join("html-report")
}

/// The Chromium executable ([`skillgym_e2e::chromium::find`]). Fails the test when there is
/// none.
fn chromium() -> PathBuf {
    skillgym_e2e::chromium::find().unwrap_or_else(|| {
        panic!(
            "Chromium is required by this test and was not found (no `chromium` on PATH, no \
             /usr/bin/chromium): install it with `apt-get install -y chromium` (.ci/run does)"
        )
    })
}

/// Fails the test unless `unshare -n` can create a network namespace here.
fn require_unshare() {
    match Command::new("unshare").args(["-n", "--", "true"]).output() {
        Err(error) => panic!(
            "`unshare` (util-linux) is required by this test to keep Chromium off the network, \
             and it cannot be run: {error}"
        ),
        Ok(output) if !output.status.success() => panic!(
            "`unshare -n` cannot create a network namespace here (it needs root or user \
             namespaces), and this test runs Chromium only without network: {}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Ok(_) => {}
    }
}

/// `file://` URL of an absolute path (bytes outside the unreserved set percent-encoded).
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for byte in path.to_str().expect("a UTF-8 path").bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(byte as char);
            }
            _ => url.push_str(&format!("%{byte:02X}")),
        }
    }
    url
}

/// Runs headless Chromium on `page` inside `unshare -n`, with a fresh profile in `profile`,
/// console messages logged to stderr, and `extra` flags. Killed (its whole process group) and
/// failed after [`BROWSER_TIMEOUT`].
fn headless(page: &Path, profile: &Path, extra: &[&str]) -> Output {
    headless_at(page, "", profile, extra)
}

/// [`headless`] on `page` with the URL fragment `fragment` (`#…`, or empty).
fn headless_at(page: &Path, fragment: &str, profile: &Path, extra: &[&str]) -> Output {
    let mut command = skillgym_e2e::chromium::offline_headless(&chromium(), profile);
    command
        .args([
            "--disable-default-apps",
            "--disable-breakpad",
            "--no-default-browser-check",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .args(extra)
        .arg(file_url(page) + fragment)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn().expect("unshare starts");
    let pid = child.id() as i32;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let stderr_reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = err.read_to_end(&mut bytes);
            bytes
        });
        let mut stdout_bytes = Vec::new();
        let _ = out.read_to_end(&mut stdout_bytes);
        let stderr_bytes = stderr_reader.join().unwrap_or_default();
        let status = child.wait().expect("wait for chromium");
        let _ = sender.send(Output {
            status,
            stdout: stdout_bytes,
            stderr: stderr_bytes,
        });
    });
    match receiver.recv_timeout(BROWSER_TIMEOUT) {
        Ok(output) => output,
        Err(_) => {
            // SAFETY: signals the process group this test started (Chromium and its helpers).
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            panic!("headless Chromium did not finish within {BROWSER_TIMEOUT:?} on {page:?}");
        }
    }
}

/// The console messages Chromium logged (`...:CONSOLE:<line>] "message", source: ...`).
fn console_lines(output: &Output) -> Vec<String> {
    stderr(output)
        .lines()
        // Chromium's own pages (`chrome://` sources, its omnibox popup) log too, on a loaded
        // machine ("Slow network is detected"): only the report's messages count.
        .filter(|line| line.contains("CONSOLE") && !line.contains("source: chrome://"))
        .map(str::to_owned)
        .collect()
}

/// The values of every `src=` and `href=` attribute (quoted or not) in `html`.
fn link_values(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut values = Vec::new();
    for attribute in ["src=", "href="] {
        for (at, _) in lower.match_indices(attribute) {
            let rest = &html[at + attribute.len()..];
            let value = match rest.chars().next() {
                Some(quote @ ('"' | '\'')) => rest[1..].split(quote).next().unwrap_or(""),
                _ => rest
                    .split(|c: char| c.is_whitespace() || c == '>')
                    .next()
                    .unwrap_or(""),
            };
            values.push(value.to_owned());
        }
    }
    values
}

/// The single run directory under an output directory (`latest` excluded).
fn only_run_dir(output_dir: &Path) -> PathBuf {
    let runs: Vec<PathBuf> = fs::read_dir(output_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "latest" && p.is_dir() && !p.is_symlink())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.into_iter().next().unwrap()
}

/// Nothing in `html` could load a resource, every link stays on the page, the only scripts are
/// the page's own (its data blocks and one inline script, allowed by its hash), and no element
/// has an event-handler attribute.
fn assert_self_contained(html: &str) {
    for value in link_values(html) {
        let value = value.to_ascii_lowercase();
        assert!(
            !value.starts_with("http://")
                && !value.starts_with("https://")
                && !value.starts_with("//"),
            "a remote resource reference: {value}"
        );
        assert!(value.starts_with('#'), "a link off the page: {value}");
    }
    for tag in [
        "<link",
        "<img",
        "<iframe",
        "<object",
        "<embed",
        "@import",
        "@font-face",
    ] {
        assert!(!html.contains(tag), "report.html holds `{tag}`");
    }
    for (at, _) in html.match_indices("<script") {
        let tag = &html[at..at + html[at..].find('>').unwrap() + 1];
        assert!(
            tag == "<script>"
                || tag == "<script type=\"application/json\" id=\"rows\">"
                || tag.starts_with("<script type=\"text/html\" id=\"detail-")
                || tag.starts_with("<script type=\"text/html\" id=\"experiment-more:"),
            "a script element not the page's: {tag}"
        );
    }
    assert_eq!(html.matches("<script>").count(), 1, "one inline script");
    let csp = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-";
    assert!(html.contains(csp), "the CSP allows one script by its hash");
    assert_no_handlers(html);
}

/// No tag in `html` (the page, its DOM, or the markup in its detail blocks) has an `on…=`
/// attribute.
fn assert_no_handlers(html: &str) {
    for (at, _) in html.match_indices('<') {
        let rest = &html[at + 1..];
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let tag = &rest[..rest.find('>').unwrap_or(rest.len())];
        for attribute in tag.split_whitespace().skip(1) {
            let name = attribute.split('=').next().unwrap().to_ascii_lowercase();
            assert!(
                !(name.starts_with("on") && attribute.contains('=')),
                "an event-handler attribute in <{tag}>"
            );
        }
    }
}

/// The section anchor of an execution: its ids as directory names (`::` -> `.`).
fn anchor(runner: &str, case: &str) -> String {
    format!("exec:{}:{runner}", case.replace("::", "."))
}

#[test]
fn the_html_report_opens_in_a_browser_with_every_execution_and_nothing_remote() {
    let chromium = chromium();
    require_unshare();
    let out = temp_dir("html-report");
    let runs = out.path().join("runs");
    let output = run_examples(
        &["--reporter", "html", "--output-dir", runs.to_str().unwrap()],
        &[],
    );
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let run_dir = only_run_dir(&runs);
    let page = run_dir.join("report.html");
    assert!(
        stdout(&output).contains(&format!("skillgym: html: {}\n", page.display())),
        "the harness names the page: {}",
        stdout(&output)
    );
    let html = fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));

    assert_self_contained(&html);

    let artifacts = artifacts_dir();
    fs::create_dir_all(&artifacts).unwrap();
    fs::copy(&page, artifacts.join("report.html")).unwrap();
    let profiles = temp_dir("html-report-chromium");

    // The console capture works: a probe page's console.error is seen.
    let probe = profiles.path().join("probe.html");
    fs::write(
        &probe,
        "<!DOCTYPE html><title>probe</title><script>console.error('skillgym-console-probe')</script>",
    )
    .unwrap();
    let probed = headless(&probe, &profiles.path().join("probe"), &["--dump-dom"]);
    assert!(
        console_lines(&probed)
            .iter()
            .any(|line| line.contains("skillgym-console-probe")),
        "Chromium ({}) does not log console messages to stderr, so this test cannot see them:\n{}",
        chromium.display(),
        stderr(&probed)
    );

    // (a) The DOM.
    let dumped = headless(&page, &profiles.path().join("dom"), &["--dump-dom"]);
    assert!(dumped.status.success(), "{}", stderr(&dumped));
    let dom = stdout(&dumped);
    fs::write(artifacts.join("dom.html"), &dom).unwrap();
    assert!(
        dom.contains("<p class=\"counts\" id=\"counts\"><strong>14 executions</strong>"),
        "{dom}"
    );
    for (runner, case, status) in EXECUTIONS {
        let heading =
            format!("<h3>[{runner}] {case} <span class=\"badge s-{status}\">{status}</span>");
        assert!(dom.contains(&heading), "no section `{heading}` in:\n{dom}");
        let id = anchor(runner, case);
        let cell = format!("<td class=\"cell s-{status}\"><a href=\"#{id}\">{status}</a></td>");
        assert!(dom.contains(&cell), "no matrix cell `{cell}` in:\n{dom}");
        assert!(
            dom.contains(&format!("<section class=\"exec\" id=\"{id}\">")),
            "no section with id {id}"
        );
    }
    assert_eq!(
        dom.matches("<section class=\"exec\"").count(),
        EXECUTIONS.len()
    );
    for row in [
        "<thead><tr><th>case</th><th>careful</th><th>hasty</th></tr></thead>",
        "<tr><th scope=\"row\"><code>showcase::finds-expo-skill</code></th><td class=\"cell s-passed\"><a href=\"#exec:showcase.finds-expo-skill:careful\">passed</a></td><td class=\"none\"></td></tr>",
        "<tr><th scope=\"row\"><code>skills::find_skills_expo</code></th><td class=\"cell s-passed\"><a href=\"#exec:skills.find_skills_expo:careful\">passed</a></td><td class=\"none\"></td></tr>",
        // The runner table: agent, version, model; passed, failed, expected-failed, flaky,
        // skipped.
        "<tr><td>careful</td><td>command</td><td>-</td><td>-</td><td class=\"num\">7</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">0</td>",
        "<tr><td>hasty</td><td>command</td><td>-</td><td>-</td><td class=\"num\">5</td><td class=\"num\">0</td><td class=\"num\">1</td><td class=\"num\">0</td><td class=\"num\">0</td>",
    ] {
        assert!(dom.contains(row), "no `{row}` in:\n{dom}");
    }
    assert_eq!(dom.matches("<td class=\"none\"></td>").count(), 2);
    // Every attempt's session was read from its report.json.
    let attempts = dom.matches("<details class=\"attempt\"").count();
    assert!(attempts >= EXECUTIONS.len(), "{attempts} attempts");
    assert_eq!(dom.matches("<h4>Timeline (").count(), attempts);
    assert!(!dom.contains("No report.json"), "{dom}");
    // Every link has its target.
    for value in link_values(&dom) {
        let target = value.strip_prefix('#').expect("an in-page link");
        assert!(
            dom.contains(&format!(" id=\"{target}\"")),
            "the link #{target} has no target"
        );
    }

    // (b) The screenshot.
    let screenshot = artifacts.join("report.png");
    let _ = fs::remove_file(&screenshot);
    let shot = headless(
        &page,
        &profiles.path().join("shot"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,4000",
        ],
    );
    assert!(shot.status.success(), "{}", stderr(&shot));
    let png = fs::read(&screenshot)
        .unwrap_or_else(|e| panic!("no screenshot at {}: {e}", screenshot.display()));
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && &png[12..16] == b"IHDR",
        "{} is not a PNG",
        screenshot.display()
    );
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((width, height), (1280, 4000));
    assert!(
        png.len() > 10_000,
        "a near-empty screenshot: {} bytes",
        png.len()
    );

    // (c) No console message while loading the page, in either run.
    for output in [&dumped, &shot] {
        let console = console_lines(output);
        assert!(
            console.is_empty(),
            "the page logged to the console:\n{}",
            console.join("\n")
        );
    }
    eprintln!("screenshot: {}", screenshot.display());
}

/// Writes the `result.json` of `case` on `runner` under `variant` into `run`: `passes` of
/// `sessions` passed, each session `tokens` tokens and `cost` dollars.
fn variant_result(
    run: &Path,
    (case, runner): (&str, &str),
    (variant, baseline): (&str, bool),
    (passes, sessions): (u32, u32),
    (tokens, cost): (u64, f64),
) {
    let dir = run.join(case).join(runner).join(variant);
    let repetitions: Vec<Value> = (1..=sessions)
        .map(|n| {
            let status = if n <= passes { "passed" } else { "failed" };
            json!({"repetition": n, "status": status, "passed": n <= passes, "attempts": [{
                "repetition": n, "attempt": 1, "status": status, "passed": n <= passes,
                "duration_ms": 2000, "steps": 1,
                "usage": {"total_tokens": {"value": tokens, "source": "provider"}, "cost_usd": cost},
                "artifact_dir": dir.join(format!("repeat-{n}/attempt-1")),
            }]})
        })
        .collect();
    let all = passes == sessions;
    let result = json!({
        "case_id": case, "runner_id": runner, "variant": variant, "baseline": baseline,
        "agent": {"type": "command"},
        "status": if all { "passed" } else { "failed" }, "passed": all, "expected_fail": false,
        "repeat_target": sessions, "repeat_failure": 0, "completed_repetitions": sessions,
        "successful_repetitions": passes, "failed_repetitions": u32::from(!all), "flaky": false,
        "attempts": {"total": sessions, "passing": passes, "pass_rate": 0.0,
                     "pass_rate_95": {"low": 0.0, "high": 1.0}},
        "duration_ms": 2000, "usage": {}, "artifact_dir": dir, "repetitions": repetitions,
    });
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("result.json"), result.to_string()).unwrap();
}

#[test]
fn the_experiment_section_draws_its_charts_in_the_browser() {
    let chromium = chromium();
    require_unshare();
    let out = temp_dir("html-experiment");
    let run = out.path().join("experiment-run");
    // (case, runner), baseline `without` and treatment `with`: passes of 10 sessions each.
    let cases = [
        (("greets", "careful"), 2, 9),
        (("lists-<files>", "careful"), 9, 1),
        (("greets", "hasty"), 5, 5),
    ];
    for (at, without, with) in cases {
        variant_result(&run, at, ("without", true), (without, 10), (1000, 0.01));
        variant_result(&run, at, ("with", false), (with, 10), (1500, 0.02));
    }
    let output = Command::new(cargo_skillgym())
        .args(["skillgym", "report", "--reporter", "html"])
        .arg(&run)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "executions failed: {}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let page = run.join("report.html");
    let html = fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
    assert_self_contained(&html);
    let artifacts = artifacts_dir();
    fs::create_dir_all(&artifacts).unwrap();
    fs::copy(&page, artifacts.join("experiment.html")).unwrap();
    let profiles = temp_dir("html-experiment-chromium");

    let dumped = headless(&page, &profiles.path().join("dom"), &["--dump-dom"]);
    assert!(dumped.status.success(), "{}", stderr(&dumped));
    let dom = stdout(&dumped);
    fs::write(artifacts.join("experiment-dom.html"), &dom).unwrap();
    let start = dom
        .find("<section id=\"experiment\">")
        .unwrap_or_else(|| panic!("no experiment section in:\n{dom}"));
    let section = &dom[start..start + dom[start..].find("</main>").unwrap()];
    for runner in ["careful", "hasty"] {
        assert!(
            section.contains(&format!(
                "<section class=\"experiment-runner\" id=\"experiment:{runner}\">"
            )),
            "{section}"
        );
    }
    // The browser parsed every chart: per case two variants' dots and the lift's, each
    // closed as an SVG element inside its svg; two bars per case for tokens and two for cost.
    let circles = section.matches("<circle ").count();
    assert_eq!(circles, cases.len() * 3, "{section}");
    assert_eq!(
        section.matches("</circle>").count(),
        circles,
        "circles are SVG elements"
    );
    assert_eq!(
        section.matches("<rect class=\"bar\"").count(),
        cases.len() * 4
    );
    for svg in section.split("<svg").skip(1) {
        let inside = &svg[..svg.find("</svg>").expect("every svg is closed")];
        assert!(
            inside.contains("<line ") || inside.contains("<rect "),
            "{inside}"
        );
    }
    assert_eq!(section.matches("<svg").count(), cases.len() * 4);
    // 9/10 then 1/10: hurts, listed first on its runner; the id was escaped.
    let hurt = section
        .find("<code>lists-&lt;files&gt;</code>")
        .expect("the escaped case id");
    assert!(
        hurt < section.find("<code>greets</code>").unwrap(),
        "hurts first"
    );
    assert!(section.contains("<span class=\"badge v-hurts\">hurts</span>"));
    assert!(section.contains("<span class=\"badge v-helps\">helps</span>"));
    // Each variant's execution has its own section, and every id is unique.
    let ids: Vec<&str> = dom
        .match_indices(" id=\"")
        .map(|(i, m)| {
            let rest = &dom[i + m.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "duplicate ids: {ids:?}");
    assert!(ids.contains(&"exec:greets:careful:with"), "{ids:?}");
    for value in link_values(&dom) {
        let target = value.strip_prefix('#').expect("an in-page link");
        assert!(ids.contains(&target), "the link #{target} has no target");
    }

    let screenshot = artifacts.join("experiment.png");
    let _ = fs::remove_file(&screenshot);
    let shot = headless(
        &page,
        &profiles.path().join("shot"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,1600",
        ],
    );
    assert!(shot.status.success(), "{}", stderr(&shot));
    let png = fs::read(&screenshot)
        .unwrap_or_else(|e| panic!("no screenshot at {}: {e}", screenshot.display()));
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    for output in [&dumped, &shot] {
        let console = console_lines(output);
        assert!(
            console.is_empty(),
            "the page logged to the console ({}):\n{}",
            chromium.display(),
            console.join("\n")
        );
    }
}

/// The text of the element with id `id` in `dom` (up to its closing tag).
fn element_text<'a>(dom: &'a str, id: &str) -> &'a str {
    let open = format!(" id=\"{id}\">");
    let start = dom.find(&open).unwrap_or_else(|| panic!("no #{id}")) + open.len();
    &dom[start..start + dom[start..].find("</").unwrap()]
}

/// The rows of the list as the browser drew them: each row's opening tag and summary.
fn list_rows(dom: &str) -> Vec<&str> {
    let start = dom.find("<div id=\"list\"").expect("the list");
    let list = &dom[start..start + dom[start..].find("<script").unwrap()];
    list.split("<details class=\"row\"")
        .skip(1)
        .map(|row| &row[..row.find("</summary>").unwrap()])
        .collect()
}

#[test]
fn a_report_of_10000_executions_opens_summary_and_failures_first_and_filters() {
    let chromium = chromium();
    require_unshare();
    let out = temp_dir("html-report-10000");
    let runs = big_runs::write_partitions(out.path(), 10_000, 2);
    let report_dir = out.path().join("report");
    let output = Command::new(cargo_skillgym())
        .args(["skillgym", "report", "--reporter", "html", "--out"])
        .arg(&report_dir)
        .args(&runs)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "executions failed: {}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let page = report_dir.join("report.html");
    let html = fs::read_to_string(&page).unwrap();
    assert_self_contained(&html);
    let profiles = temp_dir("html-report-10000-chromium");
    let open = |fragment: &str, profile: &str| {
        let dumped = headless_at(
            &page,
            fragment,
            &profiles.path().join(profile),
            &["--dump-dom"],
        );
        assert!(dumped.status.success(), "{}", stderr(&dumped));
        let console = console_lines(&dumped);
        assert!(
            console.is_empty(),
            "the page logged to the console ({}):\n{}",
            chromium.display(),
            console.join("\n")
        );
        stdout(&dumped)
    };
    let failed = |runner: Option<&str>| {
        let generated = (0..10_000).map(big_runs::generated);
        1 + generated
            .filter(|g| g.status == "failed" && runner.is_none_or(|r| g.runner == r))
            .count()
    };

    // Opened as it is: the summary first, then the list's first page, failures first.
    let dom = open("", "plain");
    fs::create_dir_all(artifacts_dir()).unwrap();
    fs::write(artifacts_dir().join("big-dom.html"), &dom).unwrap();
    let counts = dom
        .find("<p class=\"counts\" id=\"counts\"><strong>10001 executions</strong>")
        .expect("the counts");
    let runners = dom.find("<section id=\"runners\">").unwrap();
    let list = dom.find("<div id=\"list\"").unwrap();
    assert!(counts < runners && runners < list, "summary first");
    let rows = list_rows(&dom);
    assert_eq!(rows.len(), 50, "one page");
    assert!(
        rows.iter()
            .all(|row| row.contains("data-status=\"failed\"")),
        "failures first: {rows:?}"
    );
    let all_failed = failed(None);
    assert_eq!(
        element_text(&dom, "shown"),
        "Executions 1–50 of 10,001, failures first."
    );
    assert!(all_failed > 50, "{all_failed} failures fill the first page");
    assert_eq!(element_text(&dom, "page"), "page 1 of 201");
    assert_no_handlers(&dom);

    // A filter and a search from the fragment: only the planted failure.
    let (case, runner, word) = big_runs::PLANTED;
    let dom = open(
        &format!("#status=failed&runner={runner}&q={word}"),
        "needle",
    );
    let rows = list_rows(&dom);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].contains(&format!("<span class=\"name\">[{runner}] {case}</span>"))
            && rows[0].contains(word),
        "{}",
        rows[0]
    );
    assert_eq!(
        element_text(&dom, "shown"),
        "Executions 1–1 of 1 (of 10,001), failures first."
    );

    // Failed on one runner: every row of the page is, and the count is the generator's.
    let dom = open(&format!("#status=failed&runner={runner}"), "runner");
    let rows = list_rows(&dom);
    let expected = failed(Some(runner));
    assert_eq!(rows.len(), expected.min(50));
    for row in &rows {
        assert!(
            row.contains("data-status=\"failed\"")
                && row.contains(&format!("<span class=\"name\">[{runner}")),
            "{row}"
        );
    }
    assert_eq!(
        element_text(&dom, "shown"),
        format!(
            "Executions 1–{} of {expected} (of 10,001), failures first.",
            rows.len()
        )
    );

    // A fragment that is not well-formed percent-encoding is searched for as it is.
    let dom = open("#q=100%", "malformed");
    assert!(list_rows(&dom).is_empty());
    assert_eq!(
        element_text(&dom, "shown"),
        "No execution matches (of 10,001)."
    );

    // An execution's anchor: its row opened, its section drawn from its detail block.
    let id = format!("exec:{}:{runner}", case.replace("::", "."));
    let dom = open(&format!("#{id}"), "anchor");
    assert_eq!(
        dom.matches(&format!("<section class=\"exec\" id=\"{id}\">"))
            .count(),
        1,
        "the section, once"
    );
    assert!(dom.contains("the answer missed the haystack-needle"));
}
