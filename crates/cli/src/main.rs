//! `oro-mem`: remember and recall an AI agent's memories from one SQLite file.

/// `println!` for a command's output that returns the error instead of panicking: a reader
/// that stops reading (`oro-mem stats | head -1`) closes the pipe, and the command then ends
/// quietly ([`is_broken_pipe`]).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `print!` as [`outln!`] is `println!`.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// `eprintln!` without its panic: a diagnostic that cannot be written (standard error on a
/// full disk, or closed) is lost, and the command goes on.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// `eprint!` as [`errln!`] is `eprintln!`.
macro_rules! err {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($arg)*);
    }};
}

mod args;
mod capture;
mod config_file;
mod eval;
mod extract;
mod hook;
mod input;
mod mcp;
mod memories;
mod private;
mod recall;
mod remember;
mod render;
#[cfg(unix)]
mod serve;
mod stores;
mod transfer;
mod watch;

use std::collections::{HashMap, HashSet};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use oro_mem_core::config::DedupConfig;
use oro_mem_core::memory::normalize_tags;
use oro_mem_core::store::Embedding;
use oro_mem_core::{Config, Filter, MetaCondition, NewMemory, Status, Timestamp};
use oro_mem_engine::{Engine, Remembered, VersionLink};

use crate::args::{Cli, Command, FilterArgs, MemoriesCommand};
use crate::memories::{list, memories};
use crate::recall::{inject, recall};
use crate::remember::remember;
use crate::stores::{Access, AnyStore, Db};
use crate::transfer::{export, import};

fn main() {
    let cli = Cli::parse_with_empty_env_unset();
    // What a server was handed from standard input, if it then did not answer.
    #[allow(unused_mut)]
    let mut stdin = None;
    #[cfg(unix)]
    let start = match serve::forward(&cli, &mut stdin) {
        serve::Forward::Answered(status) => std::process::exit(status),
        serve::Forward::Here(start) => start,
    };
    let done = run(cli, stdin);
    // Once the command has answered, so that starting a server costs it nothing.
    #[cfg(unix)]
    if let Some(start) = start {
        start.start();
    }
    if let Err(e) = done {
        if let Some(Exit(code)) = e.downcast_ref::<Exit>() {
            std::process::exit(*code);
        }
        if is_broken_pipe(&e) {
            // The reader has what it wanted, as `head` does: no error, as in ripgrep.
            std::process::exit(0);
        }
        errln!("error: {}", error_line(&e));
        std::process::exit(1);
    }
}

/// `e` and its causes in one line, as `{e:#}` prints them, but without a cause whose text
/// the line already holds: an error that quotes its cause in its own message
/// (`... is not a usable SQLite database: file is not a database`) says it once.
fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// True when `e` is (or was caused by) writing to a pipe whose reader has gone.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// An exit status other than 0 or 1 for a command that did what it says on stdout: `remember
/// --strict` exits with [`EXIT_DUPLICATE`] when the memory duplicated one.
#[derive(Debug)]
struct Exit(i32);

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exit status {}", self.0)
    }
}

impl std::error::Error for Exit {}

/// `remember --strict`'s exit status for a memory not stored because it duplicates one.
const EXIT_DUPLICATE: i32 = 3;

struct Ctx {
    store: AnyStore,
    /// Holds the configuration too ([`Engine::config`]).
    engine: Engine,
    /// Warnings of the write path already printed.
    warned: HashSet<String>,
}

impl Ctx {
    /// Memory `id`, read in full: a use of it, counted unless `touch` is off or the store is
    /// read-only, and shown as it is after that. A count that fails (a full disk) is a line
    /// on `err`, not the read's failure.
    fn read_in_full(
        &mut self,
        id: oro_mem_core::MemoryId,
        touch: bool,
        err: &mut dyn Write,
    ) -> Result<oro_mem_core::Memory> {
        let m = self.store.get(id)?;
        if !touch || self.store.is_read_only() {
            return Ok(m);
        }
        match self.store.record_used(&[id], Timestamp::now()) {
            Ok(()) => Ok(self.store.get(id)?),
            Err(e) => {
                writeln!(err, "oro-mem: the use is not counted (memory {id}): {e}")?;
                Ok(m)
            }
        }
    }

    /// Stores `batch` through the engine, which embeds it in hybrid mode. A model that does
    /// not load is one line on `err` (once per process, or per request of a server): the
    /// memories are stored anyway, and `oro-mem embed` adds their embeddings later.
    fn remember(
        &mut self,
        batch: Vec<(NewMemory, Option<Embedding>)>,
        dedup: &DedupConfig,
        err: &mut dyn Write,
    ) -> Result<Remembered> {
        let done = self.engine.remember(&mut self.store, batch, dedup)?;
        for w in &done.warnings {
            if self.warned.insert(w.clone()) {
                writeln!(
                    err,
                    "oro-mem: {w} (run `oro-mem embed` once the model is in place)"
                )?;
            }
        }
        Ok(done)
    }

    /// Links as versions the memories of another store (an export, a worker's store) that
    /// `versions` names by that store's ids, `(old, superseded by, at)`, through `here`,
    /// each of those ids' memory in this store ([`oro_mem_engine::link_versions`]; a pair
    /// with a memory not here is passed over); then embeds again what lost its embedding.
    /// Returns how many were linked, and how many embedded again.
    fn link_versions(
        &mut self,
        versions: &[(i64, i64, Timestamp)],
        here: &HashMap<i64, i64>,
    ) -> Result<(usize, usize)> {
        let links: Vec<VersionLink> = versions
            .iter()
            .filter_map(|(old, by, at)| {
                Some(VersionLink {
                    old: *here.get(old)?,
                    by: *here.get(by)?,
                    at: *at,
                })
            })
            .collect();
        let linked = oro_mem_engine::link_versions(&mut *self.store, &links)?;
        let reembedded = self.reembed(&linked.unembedded, &mut std::io::stderr())?;
        Ok((linked.linked, reembedded))
    }

    /// Embeds `ids` again through the engine (in hybrid mode): memories whose embeddings the
    /// store dropped when a memory before them in their session was archived, reactivated
    /// or deleted. What could not be done is a line on `err`; `oro-mem embed` does it later.
    /// Returns how many were embedded.
    fn reembed(&mut self, ids: &[oro_mem_core::MemoryId], err: &mut dyn Write) -> Result<usize> {
        let done = self.engine.reembed(&mut self.store, ids)?;
        warn_left(&done, err)?;
        Ok(done.done)
    }

    /// Embeds again the memories of `made_after` whose memories before them in their session
    /// are not those given beside them, which their embeddings were made with
    /// ([`Engine::reembed_moved`]), as [`Ctx::reembed`] does. Returns how many.
    fn reembed_moved(
        &mut self,
        made_after: &[(oro_mem_core::MemoryId, Option<String>)],
        err: &mut dyn Write,
    ) -> Result<usize> {
        let done = self.engine.reembed_moved(&mut self.store, made_after)?;
        warn_left(&done, err)?;
        Ok(done.done)
    }
}

/// A line on `err` for each reason memories were left without an embedding.
fn warn_left(done: &oro_mem_engine::Reembedded, err: &mut dyn Write) -> Result<()> {
    for w in &done.warnings {
        writeln!(
            err,
            "oro-mem: {w} (run `oro-mem embed` once the model is in place)"
        )?;
    }
    Ok(())
}

fn open(cli: &Cli, access: Access) -> Result<Ctx> {
    Where::of(cli).open(access)
}

/// Where a command's store and configuration are: `--db`, `--config` and `--create` as
/// given, resolved when opened.
#[derive(Clone, Debug)]
struct Where {
    db: Option<PathBuf>,
    config: Option<PathBuf>,
    create: bool,
}

impl Where {
    fn of(cli: &Cli) -> Where {
        Where {
            db: cli.db.clone(),
            config: cli.config.clone(),
            create: cli.create,
        }
    }

    /// The configuration of the store at `location`: `--config`, else the file beside it.
    fn config_for(&self, location: &Path) -> Result<Config> {
        let path = config_file::resolve_config(self.config.as_deref(), location);
        config_file::load(path.as_deref())
    }

    /// The store for `access` (made, for a writer, with `--create`), its configuration and
    /// an engine.
    fn open(&self, access: Access) -> Result<Ctx> {
        let access = match access {
            Access::Write | Access::Serve if self.create => Access::Create,
            access => access,
        };
        let location = config_file::resolve_db(self.db.as_deref(), self.config.as_deref())?;
        let db = Db::parse(&location)?;
        let config = self.config_for(&location)?;
        let store = stores::open(&db, access)?;
        let engine = Engine::from_config(config)?;
        Ok(Ctx {
            store,
            engine,
            warned: HashSet::new(),
        })
    }
}

fn run(cli: Cli, stdin: Option<String>) -> Result<()> {
    match &cli.command {
        Command::Init(a) => init(&cli, a),
        Command::Remember(a) => {
            with_stdio(stdin, |io| remember(&mut open(&cli, Access::Write)?, a, io))
        }
        Command::Recall(a) => with_stdio(stdin, |io| recall(&mut open(&cli, Access::Read)?, a, io)),
        Command::Inject(a) => with_stdio(stdin, |io| inject(&mut open(&cli, Access::Read)?, a, io)),
        #[cfg(unix)]
        Command::Serve(a) => serve::serve(&cli, a),
        #[cfg(not(unix))]
        Command::Serve(_) => bail!("oro-mem serve needs Unix sockets"),
        Command::Memories(m) => with_stdio(stdin, |io| match &m.command {
            None => list(&open(&cli, Access::Read)?, &m.list, io),
            Some(c) => {
                let access = match c {
                    MemoriesCommand::List(_) | MemoriesCommand::Show { .. } => Access::Read,
                    _ => Access::Write,
                };
                memories(&mut open(&cli, access)?, c, io)
            }
        }),
        Command::Import(a) => import(open(&cli, Access::Write)?, a),
        Command::Export(a) => export(open(&cli, Access::Read)?, a),
        Command::Consolidate(a) => with_stdio(stdin, |io| {
            consolidate(&mut open(&cli, Access::Write)?, a, io)
        }),
        Command::Embed(a) => embed(open(&cli, Access::Write)?, a),
        Command::Stats(a) => stats(open(&cli, Access::Read)?, a.json),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(*shell, &mut command, "oro-mem", &mut script);
            std::io::stdout().lock().write_all(&script)?;
            Ok(())
        }
        Command::Man => {
            let mut page = Vec::new();
            clap_mangen::Man::new(<Cli as clap::CommandFactory>::command()).render(&mut page)?;
            std::io::stdout().lock().write_all(&page)?;
            Ok(())
        }
        Command::Extract(a) => with_stdio(stdin, |io| {
            capture::extract(&mut open(&cli, Access::Write)?, a, io)
        }),
        Command::Merge(a) => {
            let mut ctx = open(&cli, Access::Write)?;
            capture::merge(&mut ctx, a)
        }
        Command::Watch(a) => {
            let mut ctx = open(&cli, Access::Write)?;
            let location = config_file::resolve_db(cli.db.as_deref(), cli.config.as_deref())?;
            watch::watch(&mut ctx, a, &serve::side_file(&location, "watch.json"))
        }
        // Searching a read-only store is useful; its writes are tool errors saying why.
        Command::Mcp => {
            let at = Where::of(&cli);
            mcp::serve(move || at.open(Access::Serve))
        }
        Command::Eval(a) => {
            // The built-in defaults unless a configuration file is named: eval measures the
            // defaults, not whatever a project nearby has set.
            let config = match &cli.config {
                Some(path) => config_file::load(Some(path))?,
                None => Config::default(),
            };
            eval::run(a, config)
        }
        Command::Config(a) => config(&cli, a),
    }
}

/// `oro-mem config`: the configuration alone. The store is not opened, so a store that
/// cannot be reached (a PostgreSQL server down) does not hide it.
fn config(cli: &Cli, a: &args::ConfigArgs) -> Result<()> {
    let at = Where::of(cli);
    let location = config_file::resolve_db(at.db.as_deref(), at.config.as_deref())?;
    let file = config_file::resolve_config(at.config.as_deref(), &location);
    if a.upgrade {
        let Some(file) = file else {
            outln!("no configuration file: the defaults apply")?;
            return Ok(());
        };
        let keys = config_file::upgrade(&file)?;
        match keys.is_empty() {
            true => outln!("{}: no setting holds an earlier default", file.display())?,
            false => outln!(
                "{}: commented out {} (earlier defaults); today's defaults apply",
                file.display(),
                keys.join(", ")
            )?,
        }
        return Ok(());
    }
    out!("{}", toml::to_string(&at.config_for(&location)?)?)?;
    if let Some(file) = file {
        note_stale(&file)?;
    }
    Ok(())
}

/// A note on standard error naming the settings of the configuration file at `file` that hold
/// an earlier default ([`config_file::stale_defaults`]).
fn note_stale(file: &Path) -> Result<()> {
    let keys = config_file::stale_defaults(file)?;
    if !keys.is_empty() {
        eprintln!(
            "note: {} sets {} to what an earlier oro-mem wrote as the default{}; they apply as \
             set. If you did not choose them, `oro-mem config --upgrade` comments them out so \
             that today's defaults apply",
            file.display(),
            keys.join(", "),
            if keys.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

fn init(cli: &Cli, a: &args::InitArgs) -> Result<()> {
    let global = a.global;
    let db = match (&cli.db, global) {
        (Some(_), true) => bail!("init --global makes the user-level store; leave out --db"),
        (Some(p), false) => p.clone(),
        (None, true) => config_file::global_dir()
            .context("init --global needs a home directory (HOME or XDG_DATA_HOME)")?
            .join(config_file::DB_FILE),
        (None, false) => {
            let cwd = std::env::current_dir()?;
            let here = cwd.join(config_file::DIR);
            match config_file::find_oro_dir(&cwd) {
                // A project that names its store (a team's PostgreSQL database): that one.
                Some(dir) if dir == here => {
                    let beside = here.join(config_file::CONFIG_FILE);
                    let named = match beside.is_file() {
                        true => config_file::store_in(&beside)?,
                        false => None,
                    };
                    named.unwrap_or_else(|| here.join(config_file::DB_FILE))
                }
                Some(dir) if !a.nested => bail!(
                    "{} already holds this project's store (found walking up from here); a \
                     store here would hide it for everything below {}. Run `oro-mem init \
                     --nested` to make one anyway",
                    dir.display(),
                    cwd.display()
                ),
                _ => here.join(config_file::DB_FILE),
            }
        }
    };
    if let Db::Postgres(location) = Db::parse(&db)? {
        // A team's database: its schema, tables and pgvector made ready; nothing local.
        let db = Db::Postgres(location);
        stores::open(&db, Access::Create)?;
        outln!("ready: {db}: its tables and pgvector are in place; nothing was written here")?;
        return Ok(());
    }
    let dir = db
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    private::create_dir(dir)?;
    let config = dir.join(config_file::CONFIG_FILE);
    let wrote_config = if config.exists() {
        // Only a note: a file init cannot read is for the commands that use it to report.
        let _ = note_stale(&config);
        false
    } else {
        std::fs::write(&config, config_file::TEMPLATE)
            .with_context(|| format!("cannot write {}", config.display()))?;
        true
    };
    if !global && dir.file_name() == Some(std::ffi::OsStr::new(config_file::DIR)) {
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(&ignore, config_file::GITIGNORE)
                .with_context(|| format!("cannot write {}", ignore.display()))?;
        }
    }
    let existed = db.exists();
    stores::open(&Db::File(db.clone()), Access::Create)?;
    // Paths below the working directory are shown from it, as git shows them.
    let cwd = std::env::current_dir().unwrap_or_default();
    let shown = |p: &Path| p.strip_prefix(&cwd).unwrap_or(p).display().to_string();
    outln!(
        "{} {}{}",
        if existed { "found" } else { "created" },
        shown(&db),
        if wrote_config {
            format!(" and {}", shown(&config))
        } else {
            String::new()
        }
    )?;
    Ok(())
}

fn parse_list<T: std::str::FromStr<Err = oro_mem_core::Error>>(items: &[String]) -> Result<Vec<T>> {
    items
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.parse().map_err(anyhow::Error::from))
        .collect()
}

/// `--status`'s values: statuses, or `all` for every one.
fn parse_statuses(items: &[String]) -> Result<Vec<Status>> {
    if items.iter().any(|s| s.trim().eq_ignore_ascii_case("all")) {
        return Ok(Status::ALL.to_vec());
    }
    parse_list(items)
}

fn build_filter(a: &FilterArgs, now: Timestamp) -> Result<Filter> {
    Ok(Filter {
        types: parse_list(&a.types)?,
        tags_any: normalize_tags(&a.tags),
        tags_all: normalize_tags(&a.all_tags),
        namespace: a.namespace.clone(),
        session: a.session.clone(),
        bead_id: a.bead_id.clone(),
        worker_id: a.worker_id.clone(),
        min_confidence: a.min_confidence,
        statuses: parse_statuses(&a.status)?,
        include_superseded: a.include_superseded,
        sources: parse_list(&a.source)?,
        created_after: a
            .since
            .as_deref()
            .map(|s| Timestamp::parse_relative(s, now))
            .transpose()?,
        created_before: a
            .until
            .as_deref()
            .map(|s| Timestamp::parse_relative(s, now))
            .transpose()?,
        metadata: a
            .where_json
            .as_deref()
            .map(MetaCondition::parse_all)
            .transpose()?
            .unwrap_or_default(),
    })
}

/// `arg`, or standard input when it is `-` (a query or a task: bytes that are not UTF-8 read
/// as U+FFFD).
fn read_content(arg: &str, input: &mut dyn Read) -> Result<String> {
    arg_or_input(arg, || input::read_text(input, "standard input"))
}

/// `arg`, or standard input when it is `-`, as a memory's content: UTF-8 or an error, so
/// that nothing is stored with a byte lost.
fn read_memory(arg: &str, input: &mut dyn Read) -> Result<String> {
    arg_or_input(arg, || {
        input::read_utf8(input, "standard input")
            .map_err(|e| anyhow::anyhow!("{e:#}; nothing was stored"))
    })
}

/// `arg`, or what `read` reads without its trailing white space when `arg` is `-`.
fn arg_or_input(arg: &str, read: impl FnOnce() -> Result<String>) -> Result<String> {
    if arg == "-" {
        Ok(read()?.trim_end().to_string())
    } else {
        Ok(arg.to_string())
    }
}

/// Where a command reads and writes: this process's streams, or those of a client of
/// `oro-mem serve`.
struct Io<'a> {
    /// Read for a query, task, content or file of `-`.
    input: &'a mut dyn Read,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    /// The working directory of the client a server runs the command for, against which
    /// relative paths are read; `None` for this process's own.
    cwd: Option<&'a Path>,
}

/// Standard error as a command writes its diagnostics to it: one that cannot be written (a
/// full disk, a closed stream) is lost, and does not fail the command.
struct Diagnostics<W>(W);

impl<W: Write> Write for Diagnostics<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

/// Runs `f` with this process's own streams; `read` is standard input when it was read
/// already.
fn with_stdio<T>(read: Option<String>, f: impl FnOnce(&mut Io<'_>) -> Result<T>) -> Result<T> {
    let (mut stdin, mut out, mut err) = (
        std::io::stdin().lock(),
        std::io::stdout().lock(),
        Diagnostics(std::io::stderr().lock()),
    );
    let mut read = read.map(|text| std::io::Cursor::new(text.into_bytes()));
    f(&mut Io {
        input: match &mut read {
            Some(text) => text,
            None => &mut stdin,
        },
        out: &mut out,
        err: &mut err,
        cwd: None,
    })
}

fn embed(mut ctx: Ctx, a: &args::EmbedArgs) -> Result<()> {
    if a.batch_size == 0 {
        bail!("--batch-size must be at least 1");
    }
    let model = ctx.engine.embedder()?.model_id().to_string();
    if a.rebuild_index {
        ctx.store.rebuild_index()?;
    }
    // A bar on a terminal; otherwise (logs, CI) a line at every tenth of the way.
    let tty = std::io::stderr().is_terminal();
    let bar = if tty {
        ProgressBar::new(0).with_style(
            ProgressStyle::with_template("embedding [{bar:30}] {pos}/{len} ({per_sec}, {eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        )
    } else {
        ProgressBar::hidden()
    };
    let mut next_line = 0u64;
    let mut said_waiting = false;
    let done = ctx.engine.embed_missing(&mut ctx.store, a.batch_size, |p| {
        let position = p.done + p.by_others;
        bar.set_length(p.total);
        bar.set_position(position);
        if p.waiting_on > 0 && !said_waiting {
            said_waiting = true;
            let line = format!(
                "embedding: waiting for {} memories another run is embedding",
                p.waiting_on
            );
            if tty {
                bar.println(line);
            } else {
                errln!("{line}");
            }
        }
        if !tty && p.total > 0 && (position >= next_line || position == p.total) {
            errln!("embedding: {position}/{}", p.total);
            next_line = position + p.total.div_ceil(10);
        }
    });
    bar.finish_and_clear();
    let done = done.with_context(|| {
        "stopped; every finished batch is saved, run `oro-mem embed` again to go on"
    })?;
    if a.json {
        outln!(
            "{}",
            serde_json::json!({
                "model": model,
                "embedded": done.done,
                "embedded_by_other_runs": done.by_others,
            })
        )?;
    } else if done.by_others > 0 {
        outln!(
            "embedded {} memories with {model} ({} more by another run at the same time)",
            done.done,
            done.by_others
        )?;
    } else {
        outln!("embedded {} memories with {model}", done.done)?;
    }
    Ok(())
}

fn consolidate(ctx: &mut Ctx, a: &args::ConsolidateArgs, io: &mut Io<'_>) -> Result<()> {
    let config = ctx.engine.config().consolidate.clone();
    let report = oro_mem_engine::consolidate(&mut ctx.store, &config, Timestamp::now(), a.dry_run)?;
    ctx.reembed(&report.unembedded, io.err)?;
    if a.json {
        writeln!(io.out, "{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(());
    }
    let verb = if a.dry_run { "would merge" } else { "merged" };
    for (keep, drop, sim) in &report.merged {
        writeln!(io.out, "{verb} {drop} into {keep} (similarity {sim:.2})")?;
    }
    let verb = if a.dry_run {
        "would supersede"
    } else {
        "superseded"
    };
    for (old, new) in &report.superseded {
        writeln!(io.out, "{verb} {old} by {new} (its value changed)")?;
    }
    let verb = if a.dry_run {
        "would archive"
    } else {
        "archived"
    };
    for id in &report.archived {
        writeln!(io.out, "{verb} {id} (stale, low confidence)")?;
    }
    writeln!(
        io.out,
        "{}: {} merged, {} superseded, {} archived",
        if a.dry_run { "dry run" } else { "done" },
        report.merged.len(),
        report.superseded.len(),
        report.archived.len()
    )?;
    Ok(())
}

fn stats(ctx: Ctx, json: bool) -> Result<()> {
    let s = ctx.store.stats()?;
    let store = ctx.store.location();
    if json {
        let mut v = serde_json::to_value(&s)?;
        v["store"] = store.into();
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    outln!("store:      {store}")?;
    outln!(
        "memories:   {} ({} active, {} archived, {} merged, {} superseded, {} pinned)",
        s.total,
        s.active,
        s.archived,
        s.merged,
        s.superseded,
        s.pinned
    )?;
    outln!("embedded:   {}", s.embedded)?;
    for (model, n) in &s.embedded_by_model {
        outln!("  {model:<12} {n}")?;
    }
    outln!("types:      {}", s.by_type.len())?;
    for (t, n) in &s.by_type {
        outln!("  {t:<12} {n}")?;
    }
    outln!("namespaces: {}", s.by_namespace.len())?;
    for (ns, n) in s.by_namespace.iter().take(10) {
        outln!("  {ns:<12} {n}")?;
    }
    if let Some((a, b)) = s.created_range {
        outln!("created:    {a} .. {b}")?;
    }
    outln!("schema:     v{}", s.schema_version)?;
    outln!("size:       {:.1} KiB", s.size_bytes as f64 / 1024.0)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_says_each_cause_once() {
        let io = std::io::Error::other("file is not a database");
        let e = anyhow::Error::new(io).context("x.db is not usable: file is not a database");
        assert_eq!(error_line(&e), "x.db is not usable: file is not a database");
        let e = anyhow::anyhow!("disk full").context("cannot write x.db");
        assert_eq!(error_line(&e), "cannot write x.db: disk full");
    }
}
