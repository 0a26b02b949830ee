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
mod private;
mod render;
#[cfg(unix)]
mod serve;
mod stores;
mod watch;

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use oro_mem_core::config::{DedupConfig, RecallRequest};
use oro_mem_core::memory::normalize_tags;
use oro_mem_core::store::{Embedding, ListOrder, WriteOutcome};
use oro_mem_core::{
    Config, Filter, MemoryType, MetaCondition, Near, NewMemory, Query, Source, Status, Timestamp,
};
use oro_mem_engine::{Abstention, Answer, Engine, Remembered, VersionLink};

use crate::args::{Cli, Command, FilterArgs, Format, MemoriesCommand, Sort};
use crate::stores::{Access, AnyStore, Db};

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

fn remember(ctx: &mut Ctx, a: &args::RememberArgs, io: &mut Io<'_>) -> Result<()> {
    let mut m = NewMemory::new(read_memory(&a.content, io.input)?, a.memory_type.parse()?)
        .tags(a.tags.iter().cloned())
        .confidence(a.confidence)
        .namespace(a.namespace.clone())
        .source(a.source.parse::<Source>()?);
    m.bead_id = a.bead_id.clone();
    m.worker_id = a.worker_id.clone();
    m.session = a.session.clone();
    m.summary = a.summary.clone();
    m.files = a.files.clone();
    m.entities = a.entities.clone();
    m.pinned = a.pin;
    m.supersedes = a.supersedes.clone();
    if let Some(json) = &a.metadata {
        match serde_json::from_str(json) {
            Ok(serde_json::Value::Object(map)) => m.metadata = map,
            Ok(_) => bail!("--metadata must be a JSON object such as '{{\"lang\": \"rust\"}}'"),
            Err(e) => bail!("--metadata is not valid JSON: {e}"),
        }
    }
    let mut dedup = dedup_config(ctx.engine.config(), a.no_dedup);
    if a.no_supersede {
        dedup.updates = false;
    }
    let outcome = ctx
        .remember(vec![(m, None)], &dedup, io.err)?
        .outcomes
        .remove(0);
    if a.json {
        let v = outcome_json(&outcome, &ctx.store)?;
        writeln!(io.out, "{}", serde_json::to_string(&v)?)?;
    } else {
        writeln!(io.out, "{}", describe(&outcome, Some(&ctx.store))?)?;
    }
    if a.strict
        && !matches!(
            outcome,
            WriteOutcome::Inserted { .. } | WriteOutcome::Updated { .. }
        )
    {
        return Err(Exit(EXIT_DUPLICATE).into());
    }
    Ok(())
}

/// `outcome` as `remember --json` prints it, with the text of what a memory not stored as new
/// was taken for, as MCP's `memory_remember` answers: `existing` (the memory it duplicates or
/// was merged into), or `superseded` (each memory it superseded, `{id, content}`).
fn outcome_json(
    outcome: &WriteOutcome,
    store: &dyn oro_mem_core::store::MemoryRead,
) -> Result<serde_json::Value> {
    let mut v = serde_json::to_value(outcome)?;
    match outcome {
        WriteOutcome::Inserted { .. } => {}
        WriteOutcome::Skipped {
            duplicate_of: id, ..
        }
        | WriteOutcome::Merged { into: id, .. } => {
            v["existing"] = store.get(*id)?.content.into();
        }
        WriteOutcome::Updated { supersedes, .. } => {
            let superseded = supersedes
                .iter()
                .map(|&id| Ok(serde_json::json!({"id": id, "content": store.get(id)?.content})))
                .collect::<Result<Vec<_>>>()?;
            v["superseded"] = superseded.into();
        }
    }
    Ok(v)
}

/// What a write did, in a line. With the `store` written to, also what a memory not stored
/// as new was taken for (the memory it duplicates, or those it superseded, each quoted) and
/// how to store it otherwise, as `remember` says.
fn describe(
    outcome: &WriteOutcome,
    store: Option<&dyn oro_mem_core::store::MemoryRead>,
) -> Result<String> {
    // ` "its content"` when there is a store to read it from.
    let quoted = |id: oro_mem_core::MemoryId| -> Result<String> {
        store.map_or(Ok(String::new()), |s| {
            Ok(format!(" {}", render::quoted(&s.get(id)?)))
        })
    };
    let hint = |text: String| {
        if store.is_some() {
            format!(" ({text})")
        } else {
            String::new()
        }
    };
    Ok(match outcome {
        WriteOutcome::Inserted { id } => format!("inserted as id {id}"),
        WriteOutcome::Updated { id, supersedes } => {
            // "id 2, id 3" each quoted, or "ids 2, 3".
            let olds = if store.is_some() {
                supersedes
                    .iter()
                    .map(|&old| Ok(format!("id {old}{}", quoted(old)?)))
                    .collect::<Result<Vec<_>>>()?
                    .join(", ")
            } else {
                let ids: Vec<String> = supersedes.iter().map(i64::to_string).collect();
                let s = if ids.len() == 1 { "" } else { "s" };
                format!("id{s} {}", ids.join(", "))
            };
            let first = supersedes.first().copied().unwrap_or_default();
            format!(
                "inserted as id {id}, superseding {olds}{}",
                hint(format!("`oro-mem memories restore {first}` undoes it"))
            )
        }
        WriteOutcome::Merged {
            into, confidence, ..
        } => format!(
            "merged into id {into}{} (confidence raised to {confidence})",
            quoted(*into)?
        ),
        WriteOutcome::Skipped { duplicate_of, .. } => format!(
            "skipped: duplicate of id {duplicate_of}{}{}",
            quoted(*duplicate_of)?,
            hint("`--no-dedup` stores it anyway".into())
        ),
    })
}

fn dedup_config(config: &Config, off: bool) -> DedupConfig {
    let mut d = config.dedup.clone();
    if off {
        d.enabled = false;
    }
    d
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

fn recall(ctx: &mut Ctx, a: &args::RecallArgs, io: &mut Io<'_>) -> Result<()> {
    let now = match &a.now {
        Some(t) => t.parse()?,
        None => Timestamp::now(),
    };
    if a.query.trim() == "*" {
        return replay(ctx, a, io, now);
    }
    let config = RecallRequest {
        mode: a.mode,
        limit: a.limit,
        budget: a.budget,
        min_relevance: a.min_relevance,
        depth: a.depth,
        scoring: a.scoring,
        fusion: a.fusion.clone(),
        decay: a.decay.then_some(true),
        decay_half_life: a.decay_half_life,
    }
    .apply(ctx.engine.config())?;
    let near = a
        .near
        .as_deref()
        .map(|spec| Near::parse(spec, a.max_distance))
        .transpose()
        .context("--near")?;
    let text = read_content(&a.query, io.input)?;
    anyhow::ensure!(
        !oro_mem_text::is_blank(&text) || near.is_some(),
        "the query is empty: give the words to search for (`oro-mem memories list` lists \
         every memory)"
    );
    let filter = build_filter(&a.filter, now)?;
    let mut query = Query::new(&text, &filter).now(now);
    if let Some(near) = &near {
        query = query.near(near);
    }
    let answer = run_recall(ctx, &config, &query, !a.no_touch, io)?;
    let format = if a.json { Format::Json } else { a.format };
    let out = &mut io.out;
    match format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &answer)?;
            writeln!(out)?;
        }
        Format::Prompt => write!(out, "{}", render::prompt(&answer.recall.results, now))?,
        Format::Text => {
            if answer.recall.results.is_empty() {
                writeln!(out, "No relevant memories.")?;
            } else {
                write!(
                    out,
                    "{}",
                    render::text(&answer.recall.results, a.explain, now)
                )?;
            }
            if a.explain {
                writeln!(
                    out,
                    "{}; answered by {}",
                    render::funnel(
                        &answer.recall,
                        oro_mem_engine::min_similarity(&config, answer.mode)
                    ),
                    answer.answered_by
                )?;
            }
        }
    }
    // What was withheld by the relevance bar is worth a line to whoever reads the text; a
    // prompt or JSON reader (a hook, a script) has it in the JSON's `abstained`.
    if let Some(why) = &answer.recall.abstained {
        let withheld = matches!(why, Abstention::BelowRelevance { .. });
        let no_terms = matches!(why, Abstention::NoTerms);
        if a.explain || ((withheld || no_terms) && format == Format::Text) {
            let hint = if withheld {
                " (--min-relevance 0 shows the best matches)"
            } else {
                ""
            };
            writeln!(io.err, "oro-mem: nothing recalled: {why}{hint}")?;
        }
    }
    Ok(())
}

/// `recall "*" --session ID`: the session's memories (under the other filters) in the order
/// they were written, oldest first, not ranked: its episode. At most `--limit` of them
/// (default 100); access is not counted.
fn replay(ctx: &mut Ctx, a: &args::RecallArgs, io: &mut Io<'_>, now: Timestamp) -> Result<()> {
    let filter = build_filter(&a.filter, now)?;
    let Some(session) = filter.session.clone() else {
        bail!("recall \"*\" replays a session in the order it was written: add --session ID");
    };
    let limit = a.limit.unwrap_or(oro_mem_core::config::MAX_RESULTS);
    let episode = ctx.store.list(&filter, ListOrder::Oldest, limit, 0)?;
    let format = if a.json { Format::Json } else { a.format };
    let out = &mut io.out;
    match format {
        Format::Json => {
            let replay = serde_json::json!({ "replay": session, "results": episode });
            serde_json::to_writer_pretty(&mut *out, &replay)?;
            writeln!(out)?;
        }
        Format::Prompt => write!(out, "{}", render::prompt_of(&episode, now))?,
        Format::Text if episode.is_empty() => {
            writeln!(out, "No memories in session {session:?}.")?;
        }
        Format::Text => {
            for m in &episode {
                writeln!(out, "{}", render::list_line(m, now))?;
            }
        }
    }
    Ok(())
}

/// What `recall` and `inject` share: checks `config`, asks `query` with it, and writes the
/// warnings on the error stream.
fn run_recall(
    ctx: &mut Ctx,
    config: &Config,
    query: &Query<'_>,
    touch: bool,
    io: &mut Io<'_>,
) -> Result<Answer> {
    let mut engine = ctx.engine.reconfigured(config.clone())?;
    if touch && ctx.store.is_read_only() {
        writeln!(
            io.err,
            "oro-mem: {} is read-only where it is: access counts are not updated",
            ctx.store.location()
        )?;
    }
    let touch = touch && !ctx.store.is_read_only();
    let answer = engine.recall(&mut ctx.store, query, touch)?;
    for w in &answer.recall.warnings {
        writeln!(io.err, "oro-mem: {w}")?;
    }
    Ok(answer)
}

/// `recall --format prompt` with the configured budget and count, for a hook that runs
/// before every prompt: the output is the section or nothing, diagnostics go to the error
/// stream.
fn inject(ctx: &mut Ctx, a: &args::InjectArgs, io: &mut Io<'_>) -> Result<()> {
    let now = Timestamp::now();
    let config = RecallRequest {
        mode: a.mode,
        ..RecallRequest::default()
    }
    .apply(ctx.engine.config())?;
    let task = match (a.hook, &a.task) {
        (Some(args::Hook::Claude), _) => match hook::claude_task(io.input)? {
            Some(task) => task,
            // Nothing to go on yet (a new session): nothing to add.
            None => return Ok(()),
        },
        (None, Some(task)) => read_content(task, io.input)?,
        (None, None) => bail!("inject needs --task or --hook"),
    };
    let filter = build_filter(&a.filter, now)?;
    let query = Query::new(&task, &filter).now(now);
    let answer = run_recall(ctx, &config, &query, !a.no_touch, io)?;
    write!(io.out, "{}", render::prompt(&answer.recall.results, now))?;
    Ok(())
}

/// `memories list` (and bare `memories`).
fn list(ctx: &Ctx, a: &args::ListArgs, io: &mut Io<'_>) -> Result<()> {
    let now = Timestamp::now();
    let filter = build_filter(&a.filter, now)?;
    let episode = filter.session.is_some();
    let sort = a
        .sort
        .unwrap_or(if episode { Sort::Oldest } else { Sort::Newest });
    let order = match sort {
        Sort::Newest => ListOrder::Newest,
        Sort::Oldest => ListOrder::Oldest,
        Sort::Accessed => ListOrder::MostAccessed,
        Sort::Confidence => ListOrder::Confidence,
    };
    let list = ctx.store.list(&filter, order, a.limit, a.offset)?;
    for m in &list {
        if a.json {
            writeln!(io.out, "{}", serde_json::to_string(m)?)?;
        } else {
            writeln!(io.out, "{}", render::list_line(m, now))?;
        }
    }
    if !a.json {
        let total = ctx.store.count(&filter)?;
        if total as usize > list.len() {
            writeln!(
                io.err,
                "({} of {total} shown; use --limit and --offset for more)",
                list.len()
            )?;
        }
    }
    Ok(())
}

/// The memories `ids` names, in that order (an id given twice is one), all checked before a
/// command touches any: an id with no memory fails it, saying `nothing {done}`, so that it
/// acts on all of them or none.
fn every_memory(ctx: &Ctx, ids: &[i64], done: &str) -> Result<Vec<oro_mem_core::Memory>> {
    let mut seen = HashSet::new();
    let ids: Vec<i64> = ids.iter().copied().filter(|id| seen.insert(*id)).collect();
    let mut found = ctx.store.get_many(&ids)?;
    let missing: Vec<String> = ids
        .iter()
        .filter(|id| !found.iter().any(|m| m.id == **id))
        .map(i64::to_string)
        .collect();
    if !missing.is_empty() {
        bail!("no memory with id {}: nothing {done}", missing.join(", "));
    }
    found.sort_by_key(|m| ids.iter().position(|id| *id == m.id));
    Ok(found)
}

/// The versions of the fact `m` holds, oldest first: the memories it superseded and those they
/// superseded in turn (the furthest back first, then by creation), `m`, and the newer
/// versions that superseded it, each once. Just `m` when it neither superseded nor was superseded.
fn versions(
    store: &dyn oro_mem_core::store::MemoryStore,
    m: &oro_mem_core::Memory,
) -> Result<Vec<oro_mem_core::Memory>> {
    let mut superseded = Vec::new();
    store.for_each(
        &Filter {
            statuses: vec![Status::Superseded],
            namespace: Some(m.namespace.clone()),
            ..Filter::default()
        },
        &mut |s| {
            superseded.push(s);
            Ok(())
        },
    )?;
    // Those superseded by `m`, then by them, and so on, with how far back each is.
    let mut older: Vec<(usize, oro_mem_core::Memory)> = Vec::new();
    let mut newer = vec![(m.id, 0)];
    while let Some((id, d)) = newer.pop() {
        for s in superseded.iter().filter(|s| s.superseded_by == Some(id)) {
            if s.id != m.id && !older.iter().any(|(_, o)| o.id == s.id) {
                newer.push((s.id, d + 1));
                older.push((d + 1, s.clone()));
            }
        }
    }
    // Oldest first: the furthest back first, then by creation.
    older.sort_by_key(|(d, o)| (std::cmp::Reverse(*d), o.created_at, o.id));
    let mut all: Vec<oro_mem_core::Memory> = older.into_iter().map(|(_, o)| o).collect();
    all.push(m.clone());
    let mut next = m.superseded_by;
    while let Some(id) = next {
        if all.iter().any(|v| v.id == id) {
            break;
        }
        match store.get(id) {
            Ok(v) => {
                next = v.superseded_by;
                all.push(v);
            }
            // Forgotten since.
            Err(e) if e.kind() == oro_mem_core::ErrorKind::NotFound => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(all)
}

fn memories(ctx: &mut Ctx, cmd: &MemoriesCommand, io: &mut Io<'_>) -> Result<()> {
    let now = Timestamp::now();
    match cmd {
        MemoriesCommand::List(a) => list(ctx, a, io)?,
        MemoriesCommand::Consolidate(a) => return consolidate(ctx, a, io),
        MemoriesCommand::Show { id, json, no_touch } => {
            // Read in full: a use, as MCP's memory_get is.
            let m = ctx.read_in_full(*id, !no_touch, io.err)?;
            let versions = versions(&*ctx.store, &m)?;
            if *json {
                let mut value = serde_json::to_value(&m)?;
                let supersedes: Vec<i64> = versions
                    .iter()
                    .filter(|v| v.superseded_by == Some(m.id))
                    .map(|v| v.id)
                    .collect();
                if let (false, Some(object)) = (supersedes.is_empty(), value.as_object_mut()) {
                    object.insert("supersedes".into(), supersedes.into());
                }
                writeln!(io.out, "{}", serde_json::to_string_pretty(&value)?)?;
            } else {
                write!(io.out, "{}", render::memory_details(&m, now))?;
                if versions.len() > 1 {
                    write!(io.out, "{}", render::versions(&versions, m.id))?;
                }
            }
        }
        MemoriesCommand::Forget { ids, archive } => {
            let done = if *archive { "archived" } else { "forgotten" };
            let found = every_memory(ctx, ids, done)?;
            let mut unembedded = Vec::new();
            for m in &found {
                let id = m.id;
                // The older versions it superseded stay superseded: the fact leaves recall
                // with it, and `restore` brings an older version back.
                let older: Vec<String> = versions(&*ctx.store, m)?
                    .iter()
                    .filter(|v| v.superseded_by == Some(id) && v.status == Status::Superseded)
                    .map(|v| v.id.to_string())
                    .collect();
                if *archive {
                    unembedded.extend(ctx.store.set_status(id, Status::Archived)?);
                    write!(io.out, "archived {id}")?;
                } else {
                    unembedded.extend(ctx.store.forget(id)?);
                    write!(io.out, "forgot {id}")?;
                }
                match older.as_slice() {
                    [] => writeln!(io.out)?,
                    [one] => writeln!(
                        io.out,
                        "; {one}, the version it superseded, stays superseded \
                         (`oro-mem memories restore {one}` makes it current again)"
                    )?,
                    many => writeln!(
                        io.out,
                        "; {}, the versions it superseded, stay superseded \
                         (`oro-mem memories restore ID` makes one current again)",
                        many.join(", ")
                    )?,
                }
            }
            // One of them may have been forgotten after its embedding was dropped.
            ctx.reembed(&unembedded, io.err)?;
        }
        MemoriesCommand::Restore { ids } => {
            let found = every_memory(ctx, ids, "restored")?;
            let mut unembedded = Vec::new();
            for m in found.iter().filter(|m| m.status != Status::Active) {
                unembedded.extend(ctx.store.set_status(m.id, Status::Active)?);
            }
            for m in &found {
                match (m.status, m.merged_into, m.superseded_by) {
                    (Status::Active, ..) => writeln!(io.out, "{}: already active", m.id)?,
                    (Status::Merged, Some(into), _) => {
                        writeln!(io.out, "restored {} (was merged into {into})", m.id)?
                    }
                    (Status::Superseded, _, Some(by)) => {
                        writeln!(io.out, "restored {} (was superseded by {by})", m.id)?
                    }
                    (status, ..) => writeln!(io.out, "restored {} (was {status})", m.id)?,
                }
            }
            // Active again: embedded with its session's context, and those after it.
            ctx.reembed(&unembedded, io.err)?;
        }
        MemoriesCommand::Pin { id, unpin } => {
            ctx.store.set_pinned(*id, !unpin)?;
            writeln!(
                io.out,
                "{} {id}",
                if *unpin { "unpinned" } else { "pinned" }
            )?;
        }
    }
    Ok(())
}

/// Parses one JSONL line of an import: a memory as `export` writes it (extra fields such as
/// `id` are ignored); `source` defaults to `import`.
/// How many bad lines of an import are listed; the rest are counted.
const MAX_BAD_LINES_SHOWN: usize = 20;

/// The fields an import line may have: a memory to store ([`NewMemory`]'s), and those
/// `export` writes beside them, which say where the memory was (`id`, `updated_at`).
const IMPORT_FIELDS: [&str; 24] = [
    "access_count",
    "bead_id",
    "confidence",
    "content",
    "created_at",
    "entities",
    "files",
    "id",
    "last_accessed",
    "merged_into",
    "metadata",
    "namespace",
    "pinned",
    "return_count",
    "session",
    "source",
    "status",
    "summary",
    "superseded_at",
    "superseded_by",
    "tags",
    "type",
    "updated_at",
    "worker_id",
];

/// A memory from one line of an import: a JSON object with at least `content`; `type`
/// defaults to `lesson`, as for `remember`, and `source` to `import`. A field it does not
/// know is an error, not dropped: a misspelt `"tgas"` would lose the tags. Also returns the
/// `id` the line carries when `export` wrote it.
fn parse_import_line(line: &str) -> Result<ImportLine> {
    let mut value: serde_json::Value = serde_json::from_str(line).context("not JSON")?;
    let obj = value
        .as_object_mut()
        .context("expected a JSON object with at least \"content\"")?;
    let unknown: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !IMPORT_FIELDS.contains(k))
        .collect();
    if !unknown.is_empty() {
        bail!(
            "unknown field{} {} (known: {})",
            if unknown.len() == 1 { "" } else { "s" },
            unknown
                .iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", "),
            IMPORT_FIELDS.join(", ")
        );
    }
    obj.entry("source")
        .or_insert_with(|| serde_json::Value::String("import".into()));
    obj.entry("type")
        .or_insert_with(|| serde_json::Value::String(MemoryType::Lesson.to_string()));
    let id = obj.get("id").and_then(serde_json::Value::as_i64);
    let by = obj.get("superseded_by").and_then(serde_json::Value::as_i64);
    let at = obj
        .get("superseded_at")
        .and_then(|t| serde_json::from_value(t.clone()).ok())
        .unwrap_or_else(Timestamp::now);
    let mut memory: NewMemory = serde_json::from_value(value)?;
    memory.validate()?;
    let superseded = by
        .filter(|_| memory.status == Status::Superseded)
        .map(|by| (by, at));
    Ok(ImportLine {
        memory,
        id,
        superseded,
    })
}

/// A memory read from one line of an import.
struct ImportLine {
    memory: NewMemory,
    /// The id `export` wrote, if any.
    id: Option<i64>,
    /// The memory that superseded it there, by its exported id, and when, when its status is
    /// superseded (`superseded_by`, `superseded_at`).
    superseded: Option<(i64, Timestamp)>,
}

/// `batch` without the memories whose exported id names a memory of `store` with the same
/// content, namespace and status: copies of what is here.
fn still_here(
    store: &dyn oro_mem_core::store::MemoryStore,
    batch: Vec<(NewMemory, Option<i64>)>,
) -> Result<Vec<(NewMemory, Option<i64>)>> {
    let ids: Vec<i64> = batch.iter().filter_map(|(_, id)| *id).collect();
    if ids.is_empty() {
        return Ok(batch);
    }
    let here: std::collections::HashMap<i64, oro_mem_core::Memory> = store
        .get_many(&ids)?
        .into_iter()
        .map(|m| (m.id, m))
        .collect();
    Ok(batch
        .into_iter()
        .filter(|(m, id)| {
            !id.and_then(|id| here.get(&id)).is_some_and(|h| {
                h.content == m.content && h.namespace == m.namespace && h.status == m.status
            })
        })
        .collect())
}

fn open_input(path: &Path) -> Result<(Box<dyn BufRead>, Option<u64>)> {
    if path == Path::new("-") {
        return Ok((Box::new(BufReader::new(std::io::stdin())), None));
    }
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = f.metadata().ok().map(|m| m.len());
    Ok((Box::new(BufReader::new(f)), len))
}

fn progress(len: Option<u64>, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        ),
        None => ProgressBar::new_spinner(),
    };
    bar.set_message(what.to_string());
    bar
}

fn import(mut ctx: Ctx, a: &args::ImportArgs) -> Result<()> {
    if a.batch_size == 0 {
        bail!("--batch-size must be at least 1");
    }
    // Standard input can be read once: spool it to a temporary file (removed when dropped),
    // so that it is validated whole before anything is written, like a file.
    let spooled = if a.file == Path::new("-") {
        let mut f = tempfile::NamedTempFile::new()
            .context("cannot create a temporary file to hold standard input")?;
        std::io::copy(&mut std::io::stdin().lock(), &mut f)
            .and_then(|_| f.flush())
            .context("cannot read standard input into a temporary file")?;
        Some(f)
    } else {
        None
    };
    let (path, name) = match &spooled {
        Some(f) => (f.path(), "standard input".to_string()),
        None => (a.file.as_path(), a.file.display().to_string()),
    };
    // Validate the whole input first, so bad input writes nothing, and say what is wrong with
    // every bad line at once, so a file is fixed in one go.
    let (reader, _) = open_input(path)?;
    let mut bad = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{name}: cannot read line {}", i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let limits = &ctx.engine.config().memory;
        if let Err(e) = parse_import_line(&line).and_then(|l| Ok(limits.check(&l.memory.content)?))
        {
            bad.push(format!("line {}: {e:#}", i + 1));
        }
    }
    if !bad.is_empty() {
        let shown = bad.len().min(MAX_BAD_LINES_SHOWN);
        let more = match bad.len() - shown {
            0 => String::new(),
            n => format!("\n  ... and {n} more"),
        };
        bail!(
            "{name}: {} bad line{}, nothing was imported:\n  {}{more}",
            bad.len(),
            if bad.len() == 1 { "" } else { "s" },
            bad[..shown].join("\n  ")
        );
    }
    let (reader, len) = open_input(path)?;
    let bar = progress(len, "importing");
    let mut dedup = dedup_config(ctx.engine.config(), a.no_dedup);
    // The file says which memories are versions of which: an import links them as it says
    // and decides no supersession of its own (an export of a store where two states of a
    // fact were both kept active imports as it was).
    dedup.updates = false;
    let (mut inserted, mut merged, mut skipped) = (0u64, 0u64, 0u64);
    // The memory here that holds each exported one (by its exported id), and the links
    // between versions the lines carry (by exported ids), made once every line is written.
    let mut here: std::collections::HashMap<i64, i64> = std::collections::HashMap::new();
    let mut versions: Vec<(i64, i64, Timestamp)> = Vec::new();
    let mut inactive: Option<HashMap<capture::ExactKey, Vec<(Status, i64)>>> = None;
    let mut batch = Vec::with_capacity(a.batch_size);
    // `lines`: the first and last line of the batch, to name what a failed commit left out.
    let mut flush = |batch: &mut Vec<(NewMemory, Option<i64>)>,
                     lines: (usize, usize),
                     ctx: &mut Ctx|
     -> Result<()> {
        let done_before = inserted + merged + skipped;
        let mut memories = std::mem::take(batch);
        if dedup.enabled {
            // A line exported from this store, whatever its status, is skipped when its memory
            // is still here as it was: `export` then `import` into the same store changes
            // nothing (the duplicate check reads active memories only).
            let before = memories.len();
            let exported: Vec<i64> = memories.iter().filter_map(|(_, id)| *id).collect();
            memories = still_here(&*ctx.store, memories)?;
            for id in exported {
                if !memories.iter().any(|(_, e)| *e == Some(id)) {
                    here.insert(id, id);
                }
            }
            // A line not active (the duplicate check reads active memories only) that is
            // exactly a memory here of its status is a copy of it, from another store.
            if memories.iter().any(|(m, _)| m.status != Status::Active) {
                if inactive.is_none() {
                    let statuses = [Status::Archived, Status::Merged, Status::Superseded];
                    inactive = Some(capture::exact_keys(&*ctx.store, &statuses)?);
                }
                let copies = inactive.get_or_insert_with(HashMap::new);
                memories.retain(|(m, id)| {
                    // The lowest id of several of its status.
                    let same = copies.get(&capture::exact_key(m)).and_then(|v| {
                        v.iter()
                            .filter(|&&(s, _)| s == m.status)
                            .map(|&(_, id)| id)
                            .min()
                    });
                    match same {
                        Some(here_id) => {
                            if let Some(e) = id {
                                here.insert(*e, here_id);
                            }
                            false
                        }
                        None => true,
                    }
                });
            }
            skipped += (before - memories.len()) as u64;
        }
        let exported: Vec<Option<i64>> = memories.iter().map(|(_, id)| *id).collect();
        let memories = memories.into_iter().map(|(m, _)| (m, None));
        let outcomes = ctx
            .remember(memories.collect(), &dedup, &mut std::io::stderr())
            .with_context(|| {
                // Each batch is a transaction of its own: the ones before it stay.
                let (first, last) = lines;
                if done_before == 0 {
                    format!("nothing was imported: lines {first}-{last} failed")
                } else {
                    format!(
                        "lines {first}-{last} and after were not imported; the {done_before} \
                         lines before them were, and importing the file again skips those"
                    )
                }
            })?
            .outcomes;
        for (o, exported) in outcomes.into_iter().zip(exported) {
            if let Some(e) = exported {
                here.insert(e, o.id());
            }
            match o {
                WriteOutcome::Inserted { .. } | WriteOutcome::Updated { .. } => inserted += 1,
                WriteOutcome::Merged { .. } => merged += 1,
                WriteOutcome::Skipped { .. } => skipped += 1,
            }
        }
        Ok(())
    };
    let (mut first, mut last) = (0, 0);
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read line {}", i + 1))?;
        bar.inc(line.len() as u64 + 1);
        if line.trim().is_empty() {
            continue;
        }
        let line = parse_import_line(&line).with_context(|| format!("line {}", i + 1))?;
        if let (Some(old), Some((by, at))) = (line.id, line.superseded) {
            versions.push((old, by, at));
        }
        if batch.is_empty() {
            first = i + 1;
        }
        last = i + 1;
        batch.push((line.memory, line.id));
        if batch.len() >= a.batch_size {
            flush(&mut batch, (first, last), &mut ctx)?;
        }
    }
    flush(&mut batch, (first, last), &mut ctx)?;
    bar.finish_and_clear();
    let (linked, _) = ctx.link_versions(&versions, &here)?;
    outln!(
        "imported: {inserted} inserted, {merged} merged, {skipped} skipped{}",
        match linked {
            0 => String::new(),
            n => format!("; {n} superseded by newer versions"),
        }
    )?;
    Ok(())
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

fn export(ctx: Ctx, a: &args::ExportArgs) -> Result<()> {
    let filter = build_filter(&a.filter, Timestamp::now())?;
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            private::create_file(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    // One status after another, so that a file lists the active memories first.
    let statuses: Vec<Status> = if a.all {
        Status::ALL.to_vec()
    } else {
        filter.matched_statuses().collect()
    };
    let bar = progress(None, "exporting");
    let mut n = 0;
    for status in statuses {
        let f = Filter {
            statuses: vec![status],
            include_superseded: false,
            ..filter.clone()
        };
        n += ctx.store.for_each(&f, &mut |m| {
            serde_json::to_writer(&mut out, &m).map_err(|e| {
                oro_mem_core::Error::new(oro_mem_core::ErrorKind::Storage, e.to_string())
            })?;
            out.write_all(b"\n").map_err(|e| {
                oro_mem_core::Error::new(oro_mem_core::ErrorKind::Storage, e.to_string())
            })?;
            bar.inc(1);
            Ok(())
        })?;
    }
    out.flush()?;
    bar.finish_and_clear();
    if a.output.is_some() {
        outln!("exported {n} memories")?;
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

    #[test]
    fn import_knows_every_field_of_a_memory_to_store() {
        let mut m = NewMemory::new("x", MemoryType::Lesson);
        m.summary = Some("s".into());
        m.files = vec!["f".into()];
        m.entities = vec!["e".into()];
        m.created_at = Some(Timestamp::now());
        let v = serde_json::to_value(&m).unwrap();
        for key in v.as_object().unwrap().keys() {
            assert!(IMPORT_FIELDS.contains(&key.as_str()), "{key}");
        }
        assert!(
            IMPORT_FIELDS.windows(2).all(|w| w[0] < w[1]),
            "sorted, once each"
        );
    }
}
