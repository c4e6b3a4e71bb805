//! `tack eval`: run a suite (tack-eval does the work), show its progress,
//! write the report; `report`, `compare`, `merge` and `export` over results.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, anyhow};
use indicatif::{ProgressBar, ProgressStyle};
use tack_eval::record::{RunRecord, Status, read_runs};
use tack_eval::runner::{self, Meta, Options, Progress, Shard, Source};
use tack_eval::{Suite, output};
use tack_protocol::exit;
use tokio_util::sync::CancellationToken;

use crate::Failure;
use crate::cli::{EvalArgs, EvalCommand};

pub async fn run(args: EvalArgs) -> Result<u8, Failure> {
    match args.command {
        Some(EvalCommand::Report { dir }) => report(&dir),
        Some(EvalCommand::Compare {
            before,
            after,
            json,
        }) => compare(&before, &after, json),
        Some(EvalCommand::Merge { dirs, out }) => merge(&dirs, &out),
        Some(EvalCommand::Export { dir, out }) => export(&dir, out.as_deref()),
        None => evaluate(args).await,
    }
}

async fn evaluate(args: EvalArgs) -> Result<u8, Failure> {
    let Some(suite_path) = args.suite else {
        return Err(Failure::usage(anyhow!(
            "name a suite file: tack eval SUITE.toml (or tack eval report|compare|merge|export)"
        )));
    };
    let suite = Suite::load(&suite_path).map_err(Failure::usage)?;
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let source = match args.source.as_deref() {
        Some(s) => s
            .parse::<Source>()
            .map_err(|e| Failure::usage(anyhow!(e)))?,
        None if suite.cassettes.is_dir() => Source::Cassette,
        None if [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "OPENAI_API_KEY",
        ]
        .iter()
        .any(|k| env.contains_key(*k)) =>
        {
            Source::Live
        }
        None => {
            return Err(Failure::usage(anyhow!(
                "{} has no cassettes ({}) and no API key is set: --from script to use the tasks' scripts, or set ANTHROPIC_API_KEY / OPENAI_API_KEY for --from live",
                suite_path.display(),
                suite.cassettes.display()
            )));
        }
    };
    if args.record && source == Source::Cassette {
        return Err(Failure::usage(anyhow!(
            "--record writes cassettes from --from script or --from live, not from cassettes"
        )));
    }
    let shard = args
        .shard
        .as_deref()
        .map(str::parse::<Shard>)
        .transpose()
        .map_err(|e| Failure::usage(anyhow!(e)))?;
    let out = args.out.unwrap_or_else(|| {
        let mut dir = PathBuf::from(".tack-eval").join(&suite.name);
        if let Some(s) = shard {
            dir = dir.join(format!("shard-{}-of-{}", s.index, s.count));
        }
        dir
    });
    let tack = std::env::current_exe()
        .context("cannot find this tack's own path")
        .map_err(Failure::internal)?;
    let options = Options {
        out: out.clone(),
        source,
        record: args.record,
        parallel: args.parallel,
        variants: args.variants,
        tasks: args.tasks,
        model: args.model,
        provider: args.provider,
        repeats: args.repeats,
        resume: args.resume,
        force: args.force,
        shard,
        tack,
        env,
    };

    // Ctrl-C: stop the runs in flight (keeping what finished); a second one exits.
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!(
                "\ntack eval: stopping; finished runs are kept (--resume runs the rest). Ctrl-C again to quit now."
            );
            stopper.cancel();
            if tokio::signal::ctrl_c().await.is_ok() {
                crate::exit_now(exit::INTERRUPTED);
            }
        }
    });

    let display = Display::new(std::io::stderr().is_terminal());
    let outcome = runner::run(&suite, &options, &cancel, &|p| display.show(p))
        .await
        .map_err(|e| match e {
            tack_eval::Error::Usage(_) | tack_eval::Error::Suite { .. } => Failure::usage(e),
            other => Failure::internal(other),
        })?;
    display.finish();

    let meta = Meta {
        suite: suite.name.clone(),
        description: suite.description.clone(),
        suite_path: suite_path.display().to_string(),
        source,
        shard,
        harness: runner::harness(),
        started: runner::now_rfc3339(),
    };
    output::write_report(&out, &outcome.runs, &meta).map_err(Failure::internal)?;
    let counts = Counts::of(&outcome.runs);
    if args.json {
        let summary = serde_json::json!({
            "suite": suite.name,
            "out": out.display().to_string(),
            "runs": outcome.runs.len(),
            "passed": counts.passed,
            "failed": counts.failed,
            "diverged": counts.diverged,
            "error": counts.error,
            "interrupted": outcome.interrupted,
            "variants": tack_eval::report::summarize(&outcome.runs),
        });
        println!("{summary:#}");
    } else {
        println!(
            "{}: {} runs: {} passed, {} failed, {} diverged, {} could not run\nreport: {}",
            suite.name,
            outcome.runs.len(),
            counts.passed,
            counts.failed,
            counts.diverged,
            counts.error,
            out.join(output::REPORT).display()
        );
        for run in outcome.runs.iter().filter(|r| !r.passed()) {
            let why = run
                .divergence
                .as_ref()
                .map(|d| format!("diverged at request {}: {}", d.request + 1, d.detail))
                .or_else(|| {
                    run.failure
                        .as_ref()
                        .map(|f| format!("{}: {}", f.class.as_str(), f.detail))
                })
                .unwrap_or_default();
            println!("  {} {}: {why}", run.status.as_str(), run.key());
        }
    }
    if outcome.interrupted {
        return Ok(exit::INTERRUPTED);
    }
    let bad = counts.diverged + counts.error + if args.strict { counts.failed } else { 0 };
    Ok(if bad > 0 { exit::EVAL_FAILED } else { exit::OK })
}

#[derive(Default)]
struct Counts {
    passed: usize,
    failed: usize,
    diverged: usize,
    error: usize,
}

impl Counts {
    fn of(runs: &[RunRecord]) -> Counts {
        let mut c = Counts::default();
        for r in runs {
            match r.status {
                Status::Passed => c.passed += 1,
                Status::Failed => c.failed += 1,
                Status::Diverged => c.diverged += 1,
                Status::Error => c.error += 1,
            }
        }
        c
    }

    fn line(&self) -> String {
        format!(
            "✓ {}  ✗ {}  ↯ {}  ! {}",
            self.passed, self.failed, self.diverged, self.error
        )
    }
}

/// A progress bar on a terminal; a line per finished run elsewhere (CI logs).
struct Display {
    bar: Option<ProgressBar>,
    counts: Mutex<Counts>,
}

impl Display {
    fn new(terminal: bool) -> Display {
        let bar = terminal.then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Display {
            bar,
            counts: Mutex::new(Counts::default()),
        }
    }

    fn show(&self, progress: Progress<'_>) {
        let mut counts = self
            .counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match progress {
            Progress::Planned { total, skipped } => {
                if let Some(bar) = &self.bar {
                    bar.set_length(total as u64);
                } else {
                    eprintln!(
                        "tack eval: {total} runs{}",
                        if skipped > 0 {
                            format!(" ({skipped} already done)")
                        } else {
                            String::new()
                        }
                    );
                }
            }
            Progress::Started { .. } => {}
            Progress::Finished(run) => {
                match run.status {
                    Status::Passed => counts.passed += 1,
                    Status::Failed => counts.failed += 1,
                    Status::Diverged => counts.diverged += 1,
                    Status::Error => counts.error += 1,
                }
                match &self.bar {
                    Some(bar) => {
                        bar.inc(1);
                        bar.set_message(counts.line());
                    }
                    None => eprintln!(
                        "{} {} ({} turns, {} tokens, {:.1}s)  {}",
                        run.status.as_str(),
                        run.key(),
                        run.turns,
                        run.tokens.total(),
                        run.wall_ms as f64 / 1000.0,
                        counts.line()
                    ),
                }
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The runs of a results directory or a runs.jsonl file.
fn load_runs(path: &Path) -> Result<(Vec<RunRecord>, PathBuf), Failure> {
    let file = if path.is_dir() {
        path.join("runs.jsonl")
    } else {
        path.to_owned()
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))
        .map_err(Failure::usage)?;
    let (runs, skipped) = read_runs(&text);
    if skipped > 0 {
        eprintln!(
            "tack eval: {}: skipped {skipped} lines that are not run records",
            file.display()
        );
    }
    let dir = file
        .parent()
        .map(Path::to_owned)
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((runs, dir))
}

fn load_meta(dir: &Path, runs: &[RunRecord]) -> Meta {
    std::fs::read_to_string(dir.join("meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| Meta {
            suite: runs.first().map(|r| r.suite.clone()).unwrap_or_default(),
            description: String::new(),
            suite_path: String::new(),
            source: Source::Cassette,
            shard: None,
            harness: runner::harness(),
            started: runner::now_rfc3339(),
        })
}

fn report(dir: &Path) -> Result<u8, Failure> {
    let (runs, dir) = load_runs(dir)?;
    let meta = load_meta(&dir, &runs);
    output::write_report(&dir, &runs, &meta).map_err(Failure::internal)?;
    println!("{}", dir.join(output::REPORT).display());
    Ok(exit::OK)
}

fn compare(before: &Path, after: &Path, json: bool) -> Result<u8, Failure> {
    let (a, _) = load_runs(before)?;
    let (b, _) = load_runs(after)?;
    let comparison = tack_eval::compare::compare(
        &a,
        &b,
        &before.display().to_string(),
        &after.display().to_string(),
    );
    if json {
        println!("{:#}", comparison.to_json());
    } else {
        print!("{}", comparison.markdown());
    }
    Ok(exit::OK)
}

fn merge(dirs: &[PathBuf], out: &Path) -> Result<u8, Failure> {
    let mut sets = Vec::new();
    let mut meta = None;
    for dir in dirs {
        let (runs, d) = load_runs(dir)?;
        if meta.is_none() {
            meta = Some(load_meta(&d, &runs));
        }
        sets.push(runs);
    }
    let (runs, twice) = runner::merge(sets);
    for key in &twice {
        eprintln!("tack eval: {key} is in more than one shard; the last one is kept");
    }
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create {}", out.display()))
        .map_err(Failure::internal)?;
    let mut text = String::new();
    for run in &runs {
        text.push_str(&serde_json::to_string(run).unwrap_or_default());
        text.push('\n');
    }
    let file = out.join("runs.jsonl");
    std::fs::write(&file, text)
        .with_context(|| format!("cannot write {}", file.display()))
        .map_err(Failure::internal)?;
    let mut meta = meta.unwrap_or_else(|| load_meta(out, &runs));
    meta.shard = None;
    let _ = std::fs::write(
        out.join("meta.json"),
        serde_json::to_string_pretty(&meta).unwrap_or_default(),
    );
    output::write_report(out, &runs, &meta).map_err(Failure::internal)?;
    println!(
        "{} runs from {} results into {}",
        runs.len(),
        dirs.len(),
        out.display()
    );
    Ok(exit::OK)
}

fn export(dir: &Path, out: Option<&Path>) -> Result<u8, Failure> {
    let (runs, dir) = load_runs(dir)?;
    let text = output::export_atif(&dir, &runs);
    match out {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(Failure::internal)?,
        None => print!("{text}"),
    }
    Ok(exit::OK)
}
