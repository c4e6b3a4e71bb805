//! Running a suite: each run a real session in its own scratch directory,
//! N at a time, each result appended to `runs.jsonl` as it ends.
//!
//! ```text
//! OUT/runs.jsonl                      one RunRecord per finished run (--resume skips these)
//! OUT/meta.json                       the suite, source, shard and harness of this evaluation
//! OUT/runs/<task>/<variant>/<repeat>/
//!     work/    the working directory (the variant's and task's files laid out)
//!     home/ config/ state/            HOME, TACK_CONFIG_DIR, TACK_STATE_DIR (transcript under state/sessions)
//!     stdout.txt stderr.txt           what the program printed
//! ```
//!
//! Ctrl-C (the token) stops the runs in flight (their process groups are
//! killed) and records none of them: what finished is kept, and `--resume`
//! runs the rest.

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tack_process::{Hold, Spec, Stdin, Streams};
use tack_testkit::{Api, MockServer, RecordedRequest, Step};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::analyze::{self, Analysis};
use crate::cassette::{self, CASSETTE_VERSION, Cassette, Exchange, Normalizer};
use crate::check;
use crate::record::{
    CheckResult, Divergence, Failure, FailureClass, RECORD_VERSION, RunRecord, Status, read_runs,
    run_key,
};
use crate::suite::{Suite, Task, Variant};
use crate::{Error, Result};

/// Where the model's responses come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Recorded cassettes, each request checked against what was recorded.
    Cassette,
    /// The task's script of mock steps (a person's stand-in for a model).
    Script,
    /// The real API, from the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, …).
    Live,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Cassette => "cassette",
            Source::Script => "script",
            Source::Live => "live",
        }
    }
}

impl FromStr for Source {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Source, String> {
        match s {
            "cassette" | "cassettes" | "replay" => Ok(Source::Cassette),
            "script" => Ok(Source::Script),
            "live" | "api" => Ok(Source::Live),
            other => Err(format!(
                "unknown source `{other}`: cassette, script or live"
            )),
        }
    }
}

/// One shard of N: the runs whose index (in the suite's fixed order) is
/// `index` modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Shard, String> {
        let bad = || format!("--shard takes I/N with 0 <= I < N (e.g. 0/4), not `{s}`");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// How to run a suite.
#[derive(Debug, Clone)]
pub struct Options {
    pub out: PathBuf,
    pub source: Source,
    /// Write each run's cassette (from a script or a live model).
    pub record: bool,
    pub parallel: usize,
    /// Only these variants / tasks (all when empty).
    pub variants: Vec<String>,
    pub tasks: Vec<String>,
    pub model: Option<String>,
    pub provider: Option<String>,
    /// Repeats per task, over the suite's.
    pub repeats: Option<u32>,
    /// Continue the evaluation in `out`: skip the runs it holds.
    pub resume: bool,
    /// Replace what `out` holds.
    pub force: bool,
    pub shard: Option<Shard>,
    /// The tack binary (a variant without `program` runs it).
    pub tack: PathBuf,
    /// The environment the runs start from (PATH, and for a live source the
    /// providers' keys and base URLs).
    pub env: BTreeMap<String, String>,
}

/// What the runner reports as it goes.
#[derive(Debug)]
pub enum Progress<'a> {
    /// The runs to do (after `--resume` took out `skipped`).
    Planned {
        total: usize,
        skipped: usize,
    },
    Started {
        key: &'a str,
    },
    Finished(&'a RunRecord),
}

/// The end of an evaluation.
#[derive(Debug)]
pub struct Outcome {
    /// Every record in `runs.jsonl` (earlier ones of a resumed evaluation too).
    pub runs: Vec<RunRecord>,
    /// Stopped by the token before every run finished.
    pub interrupted: bool,
}

/// The evaluation's own description, `meta.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub suite: String,
    pub description: String,
    pub suite_path: String,
    pub source: Source,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub harness: String,
    pub started: String,
}

/// The harness's name and version, as records carry it.
pub fn harness() -> String {
    format!("tack {}", env!("CARGO_PKG_VERSION"))
}

/// Runs the suite.
pub async fn run(
    suite: &Suite,
    options: &Options,
    cancel: &CancellationToken,
    progress: &(dyn Fn(Progress<'_>) + Sync),
) -> Result<Outcome> {
    for v in &options.variants {
        if suite.variant(v).is_none() {
            let names: Vec<&str> = suite.variants.iter().map(|v| v.name.as_str()).collect();
            return Err(Error::Usage(format!(
                "no variant `{v}` in {}{}; the variants are {}",
                suite.path.display(),
                tack_protocol::suggest::closest(v, &names)
                    .map(|n| format!(" (did you mean `{n}`?)"))
                    .unwrap_or_default(),
                names.join(", ")
            )));
        }
    }
    for t in &options.tasks {
        if !suite.tasks.iter().any(|x| &x.id == t) {
            return Err(Error::Usage(format!(
                "no task `{t}` in {}",
                suite.path.display()
            )));
        }
    }
    let runs_path = options.out.join("runs.jsonl");
    let mut done: Vec<RunRecord> = Vec::new();
    if runs_path.exists() {
        if options.resume {
            let text = std::fs::read_to_string(&runs_path).map_err(|e| io(&runs_path, e))?;
            done = read_runs(&text).0;
        } else if options.force {
            std::fs::remove_file(&runs_path).map_err(|e| io(&runs_path, e))?;
        } else {
            return Err(Error::Usage(format!(
                "{} already holds an evaluation: --resume to continue it, --force to replace it, or --out DIR",
                options.out.display()
            )));
        }
    }
    std::fs::create_dir_all(&options.out).map_err(|e| io(&options.out, e))?;
    let meta = Meta {
        suite: suite.name.clone(),
        description: suite.description.clone(),
        suite_path: suite.path.display().to_string(),
        source: options.source,
        shard: options.shard,
        harness: harness(),
        started: now_rfc3339(),
    };
    let meta_path = options.out.join("meta.json");
    let meta_text = serde_json::to_string_pretty(&meta).unwrap_or_default();
    std::fs::write(&meta_path, meta_text).map_err(|e| io(&meta_path, e))?;

    let finished: HashSet<String> = done.iter().map(RunRecord::key).collect();
    let mut planned = Vec::new();
    for (index, (task, variant, repeat)) in suite.runs().into_iter().enumerate() {
        if options
            .shard
            .is_some_and(|s| index as u32 % s.count != s.index)
        {
            continue;
        }
        if (!options.tasks.is_empty() && !options.tasks.contains(&task.id))
            || (!options.variants.is_empty() && !options.variants.contains(&variant.name))
        {
            continue;
        }
        if options.repeats.is_some_and(|r| repeat >= r) {
            continue;
        }
        planned.push((task, variant, repeat));
    }
    // More repeats than the suite says: add them.
    if let Some(r) = options.repeats {
        let mut extra = Vec::new();
        for (index, (task, variant, repeat)) in suite.runs().into_iter().enumerate() {
            if repeat + 1 == task.repeats && r > task.repeats {
                for more in task.repeats..r {
                    let index = index as u32 + more;
                    if options.shard.is_some_and(|s| index % s.count != s.index) {
                        continue;
                    }
                    if (!options.tasks.is_empty() && !options.tasks.contains(&task.id))
                        || (!options.variants.is_empty()
                            && !options.variants.contains(&variant.name))
                    {
                        continue;
                    }
                    extra.push((task, variant, more));
                }
            }
        }
        planned.extend(extra);
    }
    let before = planned.len();
    planned.retain(|(t, v, r)| !finished.contains(&run_key(&t.id, &v.name, *r)));
    progress(Progress::Planned {
        total: planned.len(),
        skipped: before - planned.len(),
    });

    let writer = Arc::new(Mutex::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&runs_path)
            .map_err(|e| io(&runs_path, e))?,
    ));
    let limit = Arc::new(Semaphore::new(options.parallel.max(1)));
    let mut running = futures::stream::FuturesUnordered::new();
    for (task, variant, repeat) in planned {
        let limit = Arc::clone(&limit);
        running.push(async move {
            let _permit = tokio::select! {
                permit = limit.acquire_owned() => permit.ok()?,
                () = cancel.cancelled() => return None,
            };
            if cancel.is_cancelled() {
                return None;
            }
            let key = run_key(&task.id, &variant.name, repeat);
            progress(Progress::Started { key: &key });
            run_one(suite, options, task, variant, repeat, cancel).await
        });
    }
    let mut new_runs = Vec::new();
    use futures::StreamExt;
    while let Some(result) = running.next().await {
        let Some(record) = result else { continue };
        let mut line = serde_json::to_string(&record).unwrap_or_default();
        line.push('\n');
        {
            let mut file = writer.lock().unwrap_or_else(PoisonError::into_inner);
            file.write_all(line.as_bytes())
                .and_then(|()| file.flush())
                .map_err(|e| io(&runs_path, e))?;
        }
        progress(Progress::Finished(&record));
        new_runs.push(record);
    }
    done.extend(new_runs);
    Ok(Outcome {
        runs: done,
        interrupted: cancel.is_cancelled(),
    })
}

/// The directories of one run.
struct Scratch {
    root: PathBuf,
    work: PathBuf,
    home: PathBuf,
    config: PathBuf,
    state: PathBuf,
}

impl Scratch {
    fn create(out: &Path, task: &str, variant: &str, repeat: u32) -> Result<Scratch> {
        let rel = Path::new("runs")
            .join(task)
            .join(variant)
            .join(repeat.to_string());
        let root = out.join(rel);
        if root.exists() {
            std::fs::remove_dir_all(&root).map_err(|e| io(&root, e))?;
        }
        let scratch = Scratch {
            work: root.join("work"),
            home: root.join("home"),
            config: root.join("config"),
            state: root.join("state"),
            root,
        };
        for dir in [
            &scratch.work,
            &scratch.home,
            &scratch.config,
            &scratch.state,
        ] {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        Ok(scratch)
    }
}

/// The model stand-in of one run.
struct StandIn {
    mock: Option<MockServer>,
    steps: Vec<Step>,
    divergence: Arc<Mutex<Option<Divergence>>>,
    provider: String,
    model: String,
    /// Why the run cannot start (no cassette, a bad script).
    broken: Option<String>,
}

async fn stand_in(
    suite: &Suite,
    options: &Options,
    task: &Task,
    variant: &Variant,
    repeat: u32,
    normalizer: &Normalizer,
) -> StandIn {
    let provider = options
        .provider
        .clone()
        .or_else(|| variant.provider.clone())
        .unwrap_or_else(|| "anthropic".into());
    let model = options
        .model
        .clone()
        .or_else(|| variant.model.clone())
        .unwrap_or_else(|| "claude-sonnet-4-5".into());
    let mut stand_in = StandIn {
        mock: None,
        steps: Vec::new(),
        divergence: Arc::new(Mutex::new(None)),
        provider,
        model,
        broken: None,
    };
    match options.source {
        Source::Live => {}
        Source::Script => match task.script(&variant.name) {
            None => {
                stand_in.broken = Some(format!(
                    "task `{}` has no script for variant `{}` (script = \"steps.json\" in the task)",
                    task.id, variant.name
                ))
            }
            Some(path) => match std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| Step::parse_script(&t).map_err(|e| e.to_string()))
            {
                Ok(steps) => {
                    let mock = MockServer::start().await;
                    mock.push_all(steps.clone());
                    stand_in.steps = steps;
                    stand_in.mock = Some(mock);
                }
                Err(e) => stand_in.broken = Some(format!("{}: {e}", path.display())),
            },
        },
        Source::Cassette => {
            match Cassette::load(&suite.cassettes, &task.id, &variant.name, repeat) {
                Err(e) => stand_in.broken = Some(e.to_string()),
                Ok((cassette, _)) => {
                    let mock = MockServer::start().await;
                    let steps: Vec<Step> = cassette
                        .exchanges
                        .iter()
                        .map(|x| x.response.clone())
                        .collect();
                    mock.push_all(steps.clone());
                    let expected: Vec<Vec<String>> =
                        cassette.exchanges.iter().map(|x| x.sent.clone()).collect();
                    let divergence = Arc::clone(&stand_in.divergence);
                    let normalizer = normalizer.clone();
                    mock.set_gate(Arc::new(move |i: usize, _api: Api, body: &Value| {
                        let sent = cassette::sent_since_last_answer(body, &normalizer);
                        let why = match expected.get(i) {
                            None => Some(format!(
                                "the harness asked for response {} but the cassette holds {}",
                                i + 1,
                                expected.len()
                            )),
                            Some(want) => cassette::compare(want, &sent),
                        };
                        match why {
                            None => Ok(()),
                            Some(detail) => {
                                let mut slot =
                                    divergence.lock().unwrap_or_else(PoisonError::into_inner);
                                slot.get_or_insert(Divergence {
                                    request: i,
                                    detail: detail.clone(),
                                });
                                Err(format!("cassette diverged: {detail}"))
                            }
                        }
                    }));
                    stand_in.provider = cassette.provider.clone();
                    if options.model.is_none() {
                        stand_in.model = cassette.model.clone();
                    }
                    stand_in.steps = steps;
                    stand_in.mock = Some(mock);
                }
            }
        }
    }
    stand_in
}

async fn run_one(
    suite: &Suite,
    options: &Options,
    task: &Task,
    variant: &Variant,
    repeat: u32,
    cancel: &CancellationToken,
) -> Option<RunRecord> {
    let started_at = now_rfc3339();
    let start = Instant::now();
    let scratch = match Scratch::create(&options.out, &task.id, &variant.name, repeat) {
        Ok(s) => s,
        Err(e) => {
            return Some(error_record(
                suite,
                options,
                task,
                variant,
                repeat,
                &started_at,
                "",
                &e.to_string(),
            ));
        }
    };
    let rel_dir = relative(&scratch.root, &options.out);
    if let Err(e) = lay_out(&scratch.work, variant, task) {
        return Some(error_record(
            suite,
            options,
            task,
            variant,
            repeat,
            &started_at,
            &rel_dir,
            &e.to_string(),
        ));
    }
    let normalizer = Normalizer::new(
        &[scratch.root.clone(), canonical(&scratch.root)],
        &suite.normalize,
    );
    let stand_in = stand_in(suite, options, task, variant, repeat, &normalizer).await;
    if let Some(why) = &stand_in.broken {
        return Some(error_record(
            suite,
            options,
            task,
            variant,
            repeat,
            &started_at,
            &rel_dir,
            why,
        ));
    }

    // The command and its environment.
    let env = run_env(suite, options, variant, &scratch, &stand_in);
    let (program, args, stdin) = command(suite, options, task, variant, &stand_in);
    let mut spec = Spec::new(&program)
        .args(&args)
        .cwd(&scratch.work)
        .streams(Streams::Separate)
        .stdin(stdin);
    for (k, v) in &env {
        spec = spec.env(k, v);
    }
    let process = match tack_process::spawn(spec) {
        Ok(p) => p,
        Err(e) => {
            return Some(error_record(
                suite,
                options,
                task,
                variant,
                repeat,
                &started_at,
                &rel_dir,
                &format!("could not start {}: {e}", program.display()),
            ));
        }
    };
    let spawned = Instant::now();
    let ending = process
        .wait(Some(Duration::from_secs(suite.timeout_secs)), Some(cancel))
        .await;
    let program_ms = spawned.elapsed().as_millis() as u64;
    process.output_closed(Duration::from_secs(2)).await;
    if ending.cancelled() || cancel.is_cancelled() {
        return None;
    }
    let wall_ms = start.elapsed().as_millis() as u64;
    let stdout = process.stdout().take(Hold::Nothing).head;
    let stderr = process
        .stderr()
        .map(|s| s.take(Hold::Nothing).head)
        .unwrap_or_default();
    let _ = std::fs::write(scratch.root.join("stdout.txt"), &stdout);
    let _ = std::fs::write(scratch.root.join("stderr.txt"), &stderr);
    let exit_code = ending.exit().and_then(|e| e.code());

    // What the run left.
    let transcript =
        analyze::find_transcript(&scratch.state, analyze::session_id_in(&stdout).as_deref());
    let events = transcript
        .as_deref()
        .map(analyze::read_events)
        .unwrap_or_default();
    let mut analysis = analyze::analyze(&events);
    if analysis.answer.is_empty() {
        analysis.answer = answer_from_stdout(&stdout);
    }
    let requests: Vec<RecordedRequest> = stand_in
        .mock
        .as_ref()
        .map(MockServer::requests)
        .unwrap_or_default();
    if stand_in.mock.is_some() {
        analyze::split_input(&requests, &analysis.turn_ends, &mut analysis.tokens);
        analysis.retries += requests.iter().filter(|r| r.error.is_some()).count() as u32;
    }
    let divergence = stand_in
        .divergence
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();

    let mut checks = check::run_checks(task, &analysis.answer, &scratch.work, &env).await;
    let observed = analyze::observe(&analysis, suite, task, variant.searches());
    // Implied checks: the task's tools, forbidden ones, how the run ended.
    for wanted in &task.tools {
        let missing = observed.iter().find(|(f, _)| {
            matches!(
                f.class,
                FailureClass::WrongTool | FailureClass::MissedDiscovery
            ) && f.call_id.is_none()
                && f.detail.contains(wanted.as_str())
        });
        checks.push(CheckResult {
            check: format!("calls {wanted}"),
            passed: missing.is_none(),
            detail: missing.map(|(f, _)| f.detail.clone()).unwrap_or_default(),
        });
    }
    if !task.forbid_tools.is_empty() {
        let used: Vec<&Failure> = observed
            .iter()
            .filter(|(f, _)| f.class == FailureClass::WrongTool && f.call_id.is_some())
            .map(|(f, _)| f)
            .collect();
        checks.push(CheckResult {
            check: format!("does not call {}", task.forbid_tools.join(", ")),
            passed: used.is_empty(),
            detail: used.first().map(|f| f.detail.clone()).unwrap_or_default(),
        });
    }
    let repeated: Vec<&Failure> = observed
        .iter()
        .filter(|(f, _)| f.class == FailureClass::RepeatedSideEffect)
        .map(|(f, _)| f)
        .collect();
    if !repeated.is_empty() {
        checks.push(CheckResult {
            check: "no side effect twice".into(),
            passed: false,
            detail: repeated[0].detail.clone(),
        });
    }
    let timed_out = ending.timed_out();
    let ended_well = analysis.run_status.as_deref() == Some("completed");
    checks.push(CheckResult {
        check: "the session ends normally".into(),
        passed: ended_well && !timed_out,
        detail: if timed_out {
            format!("stopped after {}s", suite.timeout_secs)
        } else if ended_well {
            String::new()
        } else {
            format!(
                "it ended {} (exit {})",
                analysis.run_status.as_deref().unwrap_or("without a result"),
                exit_code.map_or("none".into(), |c| c.to_string())
            )
        },
    });

    let passed = checks.iter().all(|c| c.passed);
    let status = if divergence.is_some() {
        Status::Diverged
    } else if transcript.is_none() && !timed_out {
        Status::Error
    } else if passed {
        Status::Passed
    } else {
        Status::Failed
    };
    let failure = match status {
        Status::Passed => None,
        Status::Diverged => None,
        Status::Error => Some(Failure {
            class: FailureClass::GaveUp,
            detail: format!(
                "the program left no transcript (exit {}): {}",
                exit_code.map_or("none".into(), |c| c.to_string()),
                analyze::cut(stderr.trim(), 500)
            ),
            call_id: None,
        }),
        Status::Failed => Some(explain(&observed, &checks, task, timed_out, &analysis)),
    };
    if options.record && status != Status::Error {
        let cassette = record_cassette(
            options,
            task,
            variant,
            repeat,
            &stand_in,
            &requests,
            &analysis,
            &normalizer,
        );
        if let Err(e) = cassette.save(&suite.cassettes) {
            tracing::warn!("could not save the cassette of {}: {e}", task.id);
        }
    }
    let transcript_rel = transcript.as_deref().map(|p| relative(p, &options.out));
    Some(RunRecord {
        provider: stand_in.provider.clone(),
        model: stand_in.model.clone(),
        status,
        checks,
        failure,
        observed: observed.into_iter().map(|(f, _)| f).collect(),
        calls: analysis.calls,
        tokens: analysis.tokens,
        turns: analysis.turns,
        retries: analysis.retries,
        wall_ms,
        tool_ms: analysis.tool_ms,
        harness_ms: (start.elapsed().as_millis() as u64).saturating_sub(program_ms),
        exit_code,
        run_status: analysis.run_status,
        answer: analysis.answer,
        divergence,
        transcript: transcript_rel,
        ..record_head(suite, options, task, variant, repeat, &started_at, &rel_dir)
    })
}

/// The failure that explains a failed run: the first class (in
/// [`FailureClass`]'s order) among what was observed and not made up for,
/// else what the checks say.
fn explain(
    observed: &[(Failure, bool)],
    checks: &[CheckResult],
    task: &Task,
    timed_out: bool,
    analysis: &Analysis,
) -> Failure {
    if timed_out {
        return Failure {
            class: FailureClass::Timeout,
            detail: "the run did not finish in time".into(),
            call_id: None,
        };
    }
    if let Some((f, _)) = observed
        .iter()
        .filter(|(_, recovered)| !recovered)
        .min_by_key(|(f, _)| f.class)
    {
        return f.clone();
    }
    let failed: Vec<&CheckResult> = checks.iter().filter(|c| !c.passed).collect();
    if task.expect == crate::suite::Expect::Ask && !check::asks(&analysis.answer) {
        return Failure {
            class: FailureClass::ShouldHaveAsked,
            detail: format!(
                "answered without asking: {:?}",
                analyze::cut(&analysis.answer, 200)
            ),
            call_id: None,
        };
    }
    let gave_up =
        analysis.answer.trim().is_empty() || analysis.run_status.as_deref() != Some("completed");
    Failure {
        class: if gave_up {
            FailureClass::GaveUp
        } else {
            FailureClass::WrongFinalAnswer
        },
        detail: failed
            .iter()
            .map(|c| {
                if c.detail.is_empty() {
                    c.check.clone()
                } else {
                    format!("{}: {}", c.check, c.detail)
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
        call_id: None,
    }
}

/// The cassette of a run: the requests the mock answered (a script) or the
/// conversation the transcript holds (a live model).
#[allow(clippy::too_many_arguments)]
fn record_cassette(
    options: &Options,
    task: &Task,
    variant: &Variant,
    repeat: u32,
    stand_in: &StandIn,
    requests: &[RecordedRequest],
    analysis: &Analysis,
    normalizer: &Normalizer,
) -> Cassette {
    let mut exchanges = Vec::new();
    let mut tools = Vec::new();
    if stand_in.mock.is_some() {
        let served = requests
            .iter()
            .filter(|r| r.error.is_none() && r.body.get("messages").is_some());
        for (request, step) in served.zip(&stand_in.steps) {
            if tools.is_empty() {
                tools = cassette::tool_names(&request.body);
            }
            exchanges.push(Exchange {
                sent: cassette::sent_since_last_answer(&request.body, normalizer),
                response: step.clone(),
            });
        }
    } else {
        for (i, (conversation, answer)) in analysis
            .conversations
            .iter()
            .zip(&analysis.answers)
            .enumerate()
        {
            let content: Vec<tack_protocol::ContentBlock> = answer
                .get("content")
                .cloned()
                .and_then(|c| serde_json::from_value(c).ok())
                .unwrap_or_default();
            let end = analysis.turn_ends.get(i);
            let stop: tack_protocol::StopReason = end
                .and_then(|e| e.get("stop_reason"))
                .cloned()
                .and_then(|s| serde_json::from_value(s).ok())
                .unwrap_or(tack_protocol::StopReason::EndTurn);
            let mut step = Step::reply(content, stop);
            if let Some(usage) = end
                .and_then(|e| e.get("usage"))
                .cloned()
                .and_then(|u| serde_json::from_value(u).ok())
            {
                step = step.with_usage(usage);
            }
            exchanges.push(Exchange {
                sent: cassette::trailing_lines(conversation, normalizer),
                response: step,
            });
        }
    }
    Cassette {
        tack_cassette: CASSETTE_VERSION,
        task: task.id.clone(),
        variant: variant.name.clone(),
        repeat,
        provider: stand_in.provider.clone(),
        model: stand_in.model.clone(),
        source: options.source.as_str().into(),
        recorded_with: harness(),
        tools,
        exchanges,
    }
}

/// Copies the variant's and the task's directories and files into `work`.
fn lay_out(work: &Path, variant: &Variant, task: &Task) -> Result<()> {
    for dir in [&variant.dir, &task.dir].into_iter().flatten() {
        copy_dir(dir, work)?;
    }
    for (rel, text) in variant.files.iter().chain(&task.files) {
        let path = work.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        std::fs::write(&path, text).map_err(|e| io(&path, e))?;
    }
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let entries = std::fs::read_dir(from).map_err(|e| io(from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io(from, e))?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| io(&path, e))?;
        if kind.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| io(&target, e))?;
            copy_dir(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| io(&path, e))?;
        }
    }
    Ok(())
}

/// The environment of a run (and of its checks).
fn run_env(
    suite: &Suite,
    options: &Options,
    variant: &Variant,
    scratch: &Scratch,
    stand_in: &StandIn,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    let mut path: Vec<String> = suite
        .path_dirs
        .iter()
        .map(|p| canonical(p).display().to_string())
        .collect();
    if let Some(p) = options.env.get("PATH") {
        path.push(p.clone());
    }
    env.push(("PATH".into(), path.join(":")));
    let dir = |p: &Path| canonical(p).display().to_string();
    env.push(("HOME".into(), dir(&scratch.home)));
    env.push(("TACK_STATE_DIR".into(), dir(&scratch.state)));
    env.push(("TACK_CONFIG_DIR".into(), dir(&scratch.config)));
    env.push((
        "CLAUDE_CONFIG_DIR".into(),
        dir(&scratch.home.join(".claude")),
    ));
    env.push(("TACK_EVAL_SUITE_DIR".into(), dir(&suite.root)));
    env.push(("NO_COLOR".into(), "1".into()));
    env.push(("TACK_MODEL".into(), stand_in.model.clone()));
    match &stand_in.mock {
        Some(mock) => {
            env.push(("ANTHROPIC_BASE_URL".into(), mock.url()));
            env.push(("ANTHROPIC_API_KEY".into(), "tack-eval".into()));
            env.push(("OPENAI_BASE_URL".into(), format!("{}/v1", mock.url())));
            env.push(("OPENAI_API_KEY".into(), "tack-eval".into()));
        }
        None => {
            for key in [
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_AUTH_TOKEN",
                "ANTHROPIC_BASE_URL",
                "OPENAI_API_KEY",
                "OPENAI_BASE_URL",
                "OLLAMA_HOST",
            ] {
                if let Some(v) = options.env.get(key) {
                    env.push((key.into(), v.clone()));
                }
            }
        }
    }
    env.push(("TACK_EVAL_SUITE".into(), suite.name.clone()));
    // The variant's own variables last: they win.
    for (k, v) in &variant.env {
        env.push((k.clone(), v.clone()));
    }
    env
}

/// The program, its arguments and its stdin.
fn command(
    suite: &Suite,
    options: &Options,
    task: &Task,
    variant: &Variant,
    stand_in: &StandIn,
) -> (PathBuf, Vec<String>, Stdin) {
    let prompt = task.prompts.join("\n\n");
    match &variant.program {
        Some(program) => {
            let program = resolve_program(program, suite, options);
            let mut args: Vec<String> = Vec::new();
            let mut placed = false;
            for a in &variant.args {
                if a.contains("{prompt}") {
                    placed = true;
                }
                args.push(a.replace("{prompt}", &prompt));
            }
            if !placed {
                args.push(prompt);
            }
            (program, args, Stdin::Null)
        }
        None => {
            let multi = task.prompts.len() > 1;
            let mut args: Vec<String> = vec!["run".into()];
            if multi {
                args.extend(
                    [
                        "--input-format",
                        "stream-json",
                        "--output-format",
                        "stream-json",
                    ]
                    .map(String::from),
                );
            } else {
                args.extend(["--output-format", "json"].map(String::from));
            }
            args.extend([
                "--max-turns".into(),
                suite.max_turns.to_string(),
                "--provider".into(),
                stand_in.provider.clone(),
                "--model".into(),
                stand_in.model.clone(),
            ]);
            if let Some(mode) = &variant.tool_search {
                args.extend(["--tool-search".into(), mode.clone()]);
            }
            if variant.code_mode {
                args.push("--code-mode".into());
            }
            args.extend(variant.args.iter().cloned());
            if multi {
                let mut lines = String::new();
                for p in &task.prompts {
                    let line = json!({"type": "user", "message": {"role": "user", "content": p}});
                    lines.push_str(&line.to_string());
                    lines.push('\n');
                }
                (options.tack.clone(), args, Stdin::Bytes(lines.into_bytes()))
            } else {
                args.push(prompt);
                (options.tack.clone(), args, Stdin::Null)
            }
        }
    }
}

/// A program named in a suite: a path (relative to the suite), or a name
/// looked up on the suite's `path` and then PATH.
fn resolve_program(program: &str, suite: &Suite, options: &Options) -> PathBuf {
    if program == "tack" {
        return options.tack.clone();
    }
    if program.contains('/') {
        return suite.root.join(program);
    }
    let system = options
        .env
        .get("PATH")
        .map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default();
    suite
        .path_dirs
        .iter()
        .cloned()
        .chain(system)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(program))
}

/// The `result` of `--output-format json` when the transcript has none.
fn answer_from_stdout(stdout: &str) -> String {
    stdout
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v.get("result").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default()
}

/// The record of a run that could not run: `why`, as a `gave_up` failure.
#[allow(clippy::too_many_arguments)]
fn error_record(
    suite: &Suite,
    options: &Options,
    task: &Task,
    variant: &Variant,
    repeat: u32,
    started: &str,
    dir: &str,
    why: &str,
) -> RunRecord {
    RunRecord {
        failure: Some(Failure {
            class: FailureClass::GaveUp,
            detail: why.to_owned(),
            call_id: None,
        }),
        ..record_head(suite, options, task, variant, repeat, started, dir)
    }
}

/// What names a run (suite, task, variant, repeat, its settings, where it
/// ran), with nothing measured yet and the status `error`: the part every
/// record shares.
fn record_head(
    suite: &Suite,
    options: &Options,
    task: &Task,
    variant: &Variant,
    repeat: u32,
    started: &str,
    dir: &str,
) -> RunRecord {
    RunRecord {
        version: RECORD_VERSION,
        suite: suite.name.clone(),
        task: task.id.clone(),
        variant: variant.name.clone(),
        repeat,
        interface: variant.interface.clone(),
        tool_search: variant.searches(),
        skill: variant.skill,
        code_mode: variant.code_mode,
        provider: options
            .provider
            .clone()
            .or_else(|| variant.provider.clone())
            .unwrap_or_default(),
        model: options
            .model
            .clone()
            .or_else(|| variant.model.clone())
            .unwrap_or_default(),
        source: options.source.as_str().into(),
        status: Status::Error,
        checks: Vec::new(),
        failure: None,
        observed: Vec::new(),
        calls: Vec::new(),
        tokens: Default::default(),
        turns: 0,
        retries: 0,
        wall_ms: 0,
        model_ms: 0,
        tool_ms: 0,
        harness_ms: 0,
        exit_code: None,
        run_status: None,
        answer: String::new(),
        divergence: None,
        dir: dir.to_owned(),
        transcript: None,
        started: started.to_owned(),
        harness: harness(),
    }
}

/// Joins the `runs.jsonl` of several evaluations (shards) into one list:
/// the last record of each key wins; returns the runs and the keys seen twice.
pub fn merge(sets: Vec<Vec<RunRecord>>) -> (Vec<RunRecord>, Vec<String>) {
    let mut by_key: BTreeMap<String, RunRecord> = BTreeMap::new();
    let mut twice = Vec::new();
    for run in sets.into_iter().flatten() {
        if let Some(old) = by_key.insert(run.key(), run)
            && !twice.contains(&old.key())
        {
            twice.push(old.key());
        }
    }
    (by_key.into_values().collect(), twice)
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

fn io(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// Now, as RFC 3339 in UTC (seconds).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_refuse_nonsense() {
        assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
        assert!("4/4".parse::<Shard>().is_err());
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn the_date_is_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_789), (2026, 12, 2));
    }
}
