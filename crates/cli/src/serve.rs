//! `oro-mem serve`: a warm process that answers `recall`, `inject`, `remember`, `extract` and
//! `memories` for one store.
//!
//! A hook that runs `inject` before every prompt would otherwise pay for opening the store
//! and, in hybrid mode, loading the embedding model on every call; a `remember` in hybrid mode
//! loads the model to embed one memory. The server does both once, keeps the store warm (its
//! lexical search and duplicate checks read a mirror of the full-text index), and listens on a
//! Unix socket beside the database (for PostgreSQL, in `.oro/`: [`socket_path`]). Those
//! commands look for it first ([`forward`]) and hand it their arguments, and answer by
//! themselves when there is none, when it does not answer, when it serves another store or
//! configuration, or when it cannot write a store they would write.
//! The server runs the same code as the command would, so the output is the same.
//!
//! The protocol is JSON lines, per connection: a [`Request`] (the resolved store and
//! configuration, the arguments, standard input when the query is `-`, and the protocol's
//! version), then a [`Reply`] saying `ready` (or declining), then the client's `go`, then the
//! [`Reply`] (standard output and error, and the exit status). The `go` is what makes a
//! request run at most once: a client that waited too long for `ready` (a stalled or busy
//! server) closes the connection and answers by itself, and the server, finding no `go`, does
//! not run the request it finally reads. Once it has sent `go` the client waits for the reply
//! and never runs the command itself, unless the command only reads (then a server that
//! failed costs only time).
//!
//! A hybrid-mode command that finds no server starts one in the background ([`Start`]) and
//! answers by itself that once. One server per store: a server holds the store's lock file
//! (`serve.lock`) for as long as it runs, so that of commands starting one at once, one
//! server serves and the others end before loading the model. A server serves clients of its
//! own build only ([`build`]); one that was started by a command stops when a client of
//! another build asks, so that the next command starts one of its own.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context, Result};
use clap::Parser;
use serde::{Deserialize, Serialize};

use crate::args::{Cli, Command, MemoriesCommand, ServeArgs};
use oro_mem_store_postgres::is_postgres_location;

use crate::input::MAX_INPUT_BYTES;
use crate::stores::{Access, Db};
use crate::{config_file, Ctx, Io};

/// The largest request read, in bytes: standard input's limit, escaped as JSON, and room for
/// the rest.
const MAX_REQUEST_BYTES: u64 = 2 * MAX_INPUT_BYTES as u64 + (1 << 20);

/// How long the server waits for a client's request once it connected; a client that sends
/// nothing cannot hold the server longer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a client waits for the server to take its request (`ready`) before answering by
/// itself, unless [`ENV_TIMEOUT`] says otherwise.
const READY_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a client waits for the reply to a request the server took: the command runs
/// there, so past this the client says so and fails rather than run it a second time.
const REPLY_TIMEOUT: Duration = Duration::from_secs(600);

/// How long the server waits for the client's `go` after `ready`.
const GO_TIMEOUT: Duration = Duration::from_secs(5);

/// The version of the protocol: a client and a server of other versions do not talk (the
/// server declines, and the client answers by itself).
const PROTOCOL: u32 = 3;

/// `ORO_MEM_SERVER=off` makes the commands answer by themselves; `ORO_MEM_SERVER=manual`
/// makes them use a server that runs but never start one ([`Switch`]).
pub const ENV_SWITCH: &str = "ORO_MEM_SERVER";

/// How commands use a server, as [`ENV_SWITCH`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Switch {
    /// Use one, and start one for a hybrid-mode command when none runs (unless
    /// `serve.auto_start` is off): the default.
    Auto,
    /// Use one that runs; never start one.
    Manual,
    /// Answer by themselves.
    Off,
}

impl Switch {
    fn from_env() -> Switch {
        let value = std::env::var(ENV_SWITCH).unwrap_or_default();
        match value.trim() {
            v if v.eq_ignore_ascii_case("off") => Switch::Off,
            v if v.eq_ignore_ascii_case("manual") => Switch::Manual,
            _ => Switch::Auto,
        }
    }
}

/// `ORO_MEM_SERVER_TIMEOUT=SECONDS` sets how long a command waits for a busy or stalled server
/// to take its request before answering by itself (30 by default).
pub const ENV_TIMEOUT: &str = "ORO_MEM_SERVER_TIMEOUT";

/// The socket of the server for the store at `db` ([`side_file`] `sock`).
pub fn socket_path(db: &Path) -> PathBuf {
    side_file(db, "sock")
}

/// A file of the store at `db` that is not in it (the serve socket, watch's state): beside
/// it, named after it with `extension` added. A PostgreSQL store has no file: its side files
/// are in the project's `.oro/` (found by walking up), else in the user-level store's
/// directory, named after a hash of its URL.
pub fn side_file(db: &Path, extension: &str) -> PathBuf {
    if let Some(url) = db.to_str().filter(|s| is_postgres_location(s)) {
        // FNV-1a: the same name from every build, unlike the standard library's hasher.
        let hash = url.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let dir = std::env::current_dir()
            .ok()
            .and_then(|cwd| config_file::find_oro_dir(&cwd))
            .or_else(config_file::global_dir)
            .unwrap_or_else(std::env::temp_dir);
        return dir.join(format!("postgres-{hash:016x}.{extension}"));
    }
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(extension);
    db.with_file_name(name)
}

/// What a client asks.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    /// The store the client resolved, made absolute.
    db: PathBuf,
    /// The configuration file it resolved, made absolute; `None` for the defaults.
    config: Option<PathBuf>,
    /// Its arguments, without the program name.
    args: Vec<String>,
    /// Its standard input, read when the query, task, content or file is `-`.
    stdin: Option<String>,
    /// Its working directory, against which a relative file is read (`extract FILE`).
    #[serde(default)]
    cwd: Option<PathBuf>,
    /// [`PROTOCOL`] as the client speaks it; 0 from a client before versions were sent.
    #[serde(default)]
    protocol: u32,
    /// The client's [`build`].
    #[serde(default)]
    build: String,
}

/// What the server answers.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Reply {
    /// Set when the server does not serve this request (another store or configuration, a
    /// command it does not run): the client answers by itself.
    declined: Option<String>,
    /// Set on the first reply when the server is ready to run the request: it waits for the
    /// client's `go`, and the reply that follows is the command's.
    #[serde(default)]
    ready: bool,
    stdout: String,
    stderr: String,
    status: i32,
}

/// This build of oro-mem: its version, and the executable it runs from (device, inode, size
/// and modification time), so that a binary upgraded in place or another copy is another
/// build even at the same version. Read once: a server keeps the build it started as, even
/// when its executable is replaced.
fn build() -> &'static str {
    static BUILD: OnceLock<String> = OnceLock::new();
    BUILD.get_or_init(|| {
        use std::os::unix::fs::MetadataExt;
        let file = std::env::current_exe()
            .and_then(std::fs::metadata)
            .map(|m| format!("{}:{}:{}:{}", m.dev(), m.ino(), m.len(), m.mtime_nsec()))
            .unwrap_or_default();
        format!("{} {file}", env!("CARGO_PKG_VERSION"))
    })
}

/// The lock a server holds while it runs ([`side_file`] `serve.lock`).
fn lock_path(db: &Path) -> PathBuf {
    side_file(db, "serve.lock")
}

/// Takes the store's server lock, held until the returned file is closed (when the server
/// ends, however it ends); `None` when another server holds it. A command checking for a
/// server that is starting ([`lock_is_free`]) holds it for an instant, so a few tries are
/// made before giving up.
fn take_lock(db: &Path) -> Result<Option<File>> {
    let path = lock_path(db);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("cannot open the lock {}", path.display()))?;
    for _ in 0..10 {
        match file.try_lock() {
            Ok(()) => return Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
    }
    Ok(None)
}

/// Whether no server holds the store's lock: none runs, and none is starting.
fn lock_is_free(db: &Path) -> bool {
    let Ok(file) = File::open(lock_path(db)) else {
        // Never made: no server ever ran.
        return true;
    };
    // Released when `file` is closed.
    file.try_lock_shared().is_ok()
}

/// A path made absolute and resolved, so that a client and the server compare the same; a
/// PostgreSQL URL as it is.
fn canonical(path: &Path) -> PathBuf {
    if path.to_str().is_some_and(is_postgres_location) {
        return path.to_path_buf();
    }
    std::fs::canonicalize(path).unwrap_or_else(|_| std::path::absolute(path).unwrap_or_default())
}

/// The configuration file as read: where it is, and when and how large it was, so that a
/// change is seen and read again.
#[derive(Clone, Debug, PartialEq)]
struct ConfigStamp {
    path: Option<PathBuf>,
    stamp: Option<(SystemTime, u64)>,
}

impl ConfigStamp {
    fn of(path: Option<PathBuf>) -> ConfigStamp {
        let stamp = path
            .as_deref()
            .and_then(|p| std::fs::metadata(p).ok())
            .and_then(|m| Some((m.modified().ok()?, m.len())));
        ConfigStamp { path, stamp }
    }
}

/// `oro-mem serve`: opens the store (read-only where it cannot be written), loads the model
/// when the configured mode needs it, and answers `recall`, `inject`, `remember`, `extract`
/// and `memories` on the socket beside the database until it is stopped (the socket is
/// removed on SIGINT and SIGTERM).
///
/// # Errors
///
/// When the store cannot be opened, another server already serves it, or the socket cannot
/// be made.
pub fn serve(cli: &Cli, args: &ServeArgs) -> Result<()> {
    let db = config_file::resolve_db(cli.db.as_deref(), cli.config.as_deref())?;
    // Shown without a password.
    let shown = Db::parse(&db)?.to_string();
    let db = canonical(&db);
    let socket = socket_path(&db);
    if let Some(dir) = socket.parent() {
        // The user-level directory, for a PostgreSQL store outside any project.
        crate::private::create_dir(dir)?;
    }
    // Held until the process ends.
    let Some(_lock) = take_lock(&db)? else {
        if args.auto {
            // Another command started one first.
            return Ok(());
        }
        bail!(
            "another oro-mem server already serves this store (or is starting): its socket is {}",
            socket.display()
        );
    };
    if args.auto {
        empty_log();
        errln!("oro-mem: started by a command that found no server");
    }
    let mut ctx = crate::open(cli, Access::Read)?;
    ctx.store.stay_warm();
    let mut opened = file_identity(&db);
    let mut config = ConfigStamp::of(
        config_file::resolve_config(cli.config.as_deref(), &db).map(|p| canonical(&p)),
    );
    let mode = ctx.engine.config().mode;
    if mode != oro_mem_core::Mode::Fts {
        let started = Instant::now();
        match ctx.engine.embedder() {
            Ok(_) => errln!(
                "oro-mem: model loaded in {:.2} s",
                started.elapsed().as_secs_f64()
            ),
            Err(e) => errln!("oro-mem: {mode} mode unavailable, answering FTS-only: {e}"),
        }
    }
    let listener = bind(&socket)?;
    let cleanup = socket.clone();
    ctrlc::set_handler(move || {
        let _ = std::fs::remove_file(&cleanup);
        std::process::exit(0);
    })
    .context("cannot handle SIGINT and SIGTERM")?;
    errln!(
        "oro-mem: serving {shown} on {} ({mode} mode); {}",
        socket.display(),
        if args.auto {
            "it stops after serve.idle_minutes without a request"
        } else {
            "stop with Ctrl-C"
        }
    );
    let activity = Arc::new(Mutex::new(Activity {
        last: Instant::now(),
        busy: false,
        idle: idle_limit(&ctx),
    }));
    watch_idle(Arc::clone(&activity), socket.clone(), db.clone());
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                errln!("oro-mem: cannot accept a connection: {e}");
                continue;
            }
        };
        lock(&activity).busy = true;
        let now = file_identity(&db);
        if now != opened {
            // The path names another file than the one open (moved over it, or removed).
            // The old one is let go of first: SQLite's log beside the path is the old one's
            // until it is written into it and emptied. The model stays loaded.
            let released = ctx.store.let_go();
            let closed = oro_mem_store_sqlite::Store::open_in_memory()?;
            drop(std::mem::replace(&mut ctx.store, Box::new(closed)));
            let reopened = match (released, now) {
                (Err(e), _) => Err(anyhow::Error::from(e).context("the old file's log")),
                (Ok(()), Some(_)) => {
                    Db::parse(&db).and_then(|d| crate::stores::open(&d, Access::Read))
                }
                (Ok(()), None) => Err(anyhow::anyhow!("there is no file there")),
            };
            match reopened {
                Ok(store) => {
                    ctx.store = store;
                    ctx.store.stay_warm();
                    opened = now;
                    errln!("oro-mem: {shown} was replaced; serving the new file");
                }
                Err(e) => {
                    errln!("oro-mem: {shown} was replaced and cannot be served ({e:#}); stopping");
                    let _ = std::fs::remove_file(socket_path(&db));
                    // The request is not answered: its client answers by itself.
                    drop(stream);
                    return Ok(());
                }
            }
        }
        match answer(&mut ctx, &db, &mut config, stream, Instant::now()) {
            Err(e) => errln!("oro-mem: a request failed: {e:#}"),
            Ok(Answered::OtherBuild) if args.auto => {
                // Every client of that build would be declined; stopping lets the next one
                // start a server of its own.
                errln!("oro-mem: a client of another build of oro-mem asked; stopping");
                let _ = std::fs::remove_file(&socket);
                return Ok(());
            }
            Ok(_) => {}
        }
        let mut a = lock(&activity);
        a.busy = false;
        a.last = Instant::now();
        // The configuration may have been read again.
        a.idle = idle_limit(&ctx);
    }
    Ok(())
}

/// The file a SQLite store's path names, as its device and inode, `None` when there is no
/// file there; the same value always for a PostgreSQL store, which has no file.
fn file_identity(db: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    if db.to_str().is_some_and(is_postgres_location) {
        return Some((0, 0));
    }
    std::fs::metadata(db).ok().map(|m| (m.dev(), m.ino()))
}

/// When the server last answered, whether it is answering, and how long it may wait idle.
#[derive(Debug)]
struct Activity {
    last: Instant,
    busy: bool,
    idle: Option<Duration>,
}

fn lock(activity: &Mutex<Activity>) -> std::sync::MutexGuard<'_, Activity> {
    // A panic elsewhere leaves the times readable.
    activity
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `serve.idle_minutes` as a duration; `None` for 0, never.
fn idle_limit(ctx: &Ctx) -> Option<Duration> {
    let minutes = ctx.engine.config().serve.idle_minutes;
    (minutes > 0.0).then(|| Duration::from_secs_f64(minutes * 60.0))
}

/// Empties the log a server started in the background writes to (its standard error, the
/// side file `serve.log` opened for appending by the command that started it): from one
/// server to the next, the log holds the one that runs. Anything else on standard error (a
/// terminal) is left alone.
fn empty_log() {
    use std::os::fd::AsFd;
    let Ok(fd) = std::io::stderr().as_fd().try_clone_to_owned() else {
        return;
    };
    let log = File::from(fd);
    if log.metadata().is_ok_and(|m| m.is_file()) {
        let _ = log.set_len(0);
    }
}

/// Stops the server, removing its socket, once it has been idle for its limit, or once the
/// store's file is gone (a store deleted with its directory has no more clients): checked on
/// a thread of its own, as the main one waits for connections.
fn watch_idle(activity: Arc<Mutex<Activity>>, socket: PathBuf, db: PathBuf) {
    std::thread::spawn(move || loop {
        let wait = {
            let a = lock(&activity);
            if !a.busy && file_identity(&db).is_none() {
                let _ = std::fs::remove_file(&socket);
                errln!("oro-mem: the store is gone; stopping");
                std::process::exit(0);
            }
            match a.idle {
                Some(limit) if !a.busy && a.last.elapsed() >= limit => {
                    let _ = std::fs::remove_file(&socket);
                    errln!(
                        "oro-mem: no request for {:.1} minutes (serve.idle_minutes); stopping",
                        limit.as_secs_f64() / 60.0
                    );
                    std::process::exit(0);
                }
                Some(limit) if !a.busy => limit.saturating_sub(a.last.elapsed()),
                _ => Duration::from_secs(1),
            }
        };
        std::thread::sleep(wait.clamp(Duration::from_millis(50), Duration::from_secs(10)));
    });
}

/// Binds the socket: a socket file nobody answers on is left from a server that was killed,
/// and is replaced; one that answers belongs to a running server. Only the owner may
/// connect.
fn bind(socket: &Path) -> Result<UnixListener> {
    if socket.exists() {
        if UnixStream::connect(socket).is_ok() {
            bail!(
                "another oro-mem server already serves this store on {}",
                socket.display()
            );
        }
        std::fs::remove_file(socket)
            .with_context(|| format!("cannot remove the stale socket {}", socket.display()))?;
    }
    let listener = UnixListener::bind(socket).with_context(|| {
        format!(
            "cannot listen on {} (a socket path holds at most 107 bytes)",
            socket.display()
        )
    })?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot restrict {} to its owner", socket.display()))?;
    Ok(listener)
}

/// How a request was answered, for what the server does next.
#[derive(Debug, PartialEq, Eq)]
enum Answered {
    /// Run, declined, or given up on by its client.
    Done,
    /// Declined: the client is another build of oro-mem.
    OtherBuild,
}

/// Reads one request from `stream`, runs it, logs what was done and how long it took (from
/// `started`), and writes the reply.
fn answer(
    ctx: &mut Ctx,
    db: &Path,
    config: &mut ConfigStamp,
    stream: UnixStream,
    started: Instant,
) -> Result<Answered> {
    stream.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    (&mut reader)
        .take(MAX_REQUEST_BYTES)
        .read_line(&mut line)
        .context("cannot read the request")?;
    let request: Request = serde_json::from_str(&line).context("unreadable request")?;
    let answered = if request.protocol == PROTOCOL && request.build == build() {
        Answered::Done
    } else {
        Answered::OtherBuild
    };
    let (reply, what) = match prepare(db, config, request) {
        Err(declined) => declined,
        Ok((args, request, now)) => {
            // Ready: the request runs only if the client still waits for it.
            let ready = Reply {
                ready: true,
                ..Reply::default()
            };
            let mut go = String::new();
            let went = send(&stream, &ready)
                .and_then(|()| Ok(stream.set_read_timeout(Some(GO_TIMEOUT))?))
                .and_then(|()| Ok((&mut reader).take(16).read_line(&mut go)?));
            if went.is_err() || go.trim_end() != "go" {
                errln!("oro-mem: a request the client gave up on was not run");
                return Ok(Answered::Done);
            }
            run(ctx, config, &args, request, now)
        }
    };
    // Logged before the reply is sent, so that a client that has its answer finds it logged.
    errln!(
        "oro-mem: {what} in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    send(&stream, &reply)?;
    Ok(answered)
}

/// Writes `reply` as one line.
fn send(stream: &UnixStream, reply: &Reply) -> Result<()> {
    let mut text = serde_json::to_string(reply)?;
    text.push('\n');
    let mut stream = stream;
    stream
        .write_all(text.as_bytes())
        .context("cannot write the reply")
}

/// A reply, and what the log says of it.
type Logged = (Reply, String);

/// The reply declining a request, for `why`.
fn decline(why: String) -> Logged {
    let logged = format!("declined: {why}");
    (
        Reply {
            declined: Some(why),
            ..Reply::default()
        },
        logged,
    )
}

/// Checks that this server can run `request`: its arguments parsed, and the configuration
/// file as it is now; else the reply declining it.
fn prepare(
    db: &Path,
    config: &ConfigStamp,
    mut request: Request,
) -> std::result::Result<(Cli, Request, ConfigStamp), Logged> {
    if request.protocol != PROTOCOL || request.build != build() {
        return Err(decline(format!(
            "the client is another build of oro-mem (this server is {})",
            build()
        )));
    }
    if request.db != db {
        return Err(decline(format!("this server serves {}", db.display())));
    }
    let args = std::mem::take(&mut request.args);
    let args = match Cli::try_parse_from(std::iter::once("oro-mem".to_string()).chain(args)) {
        Ok(args) => args,
        Err(e) => return Err(decline(format!("unreadable arguments: {e}"))),
    };
    let now = ConfigStamp::of(request.config.take());
    if now.path != config.path {
        return Err(decline(
            "the client reads another configuration file".to_string(),
        ));
    }
    Ok((args, request, now))
}

/// A command a server runs: its name, and whether it writes the store.
struct Served {
    what: &'static str,
    writes: bool,
}

/// What a server makes of `command`; `None` for a command it does not run.
fn served(command: &Command) -> Option<Served> {
    let (what, writes) = match command {
        Command::Recall(_) => ("recall", false),
        Command::Inject(_) => ("inject", false),
        Command::Remember(_) => ("remember", true),
        Command::Extract(a) => ("extract", !a.dry_run),
        Command::Memories(m) => (
            "memories",
            !matches!(
                m.command,
                None | Some(MemoriesCommand::List(_) | MemoriesCommand::Show { .. })
            ),
        ),
        _ => return None,
    };
    Some(Served { what, writes })
}

/// Runs a request as the command would run: the reply, and what was done.
fn run(
    ctx: &mut Ctx,
    config: &mut ConfigStamp,
    args: &Cli,
    request: Request,
    now: ConfigStamp,
) -> Logged {
    let mut reply = Reply::default();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut input = std::io::Cursor::new(request.stdin.unwrap_or_default().into_bytes());
    let mut io = Io {
        input: &mut input,
        out: &mut out,
        err: &mut err,
        cwd: request.cwd.as_deref(),
    };
    let Some(Served { what, writes }) = served(&args.command) else {
        return decline(
            "it answers only recall, inject, remember, extract and memories".to_string(),
        );
    };
    if writes && ctx.store.is_read_only() {
        return decline("its store is read-only".to_string());
    }
    // A warning is said once to each client, as each command process says it once.
    ctx.warned.clear();
    let done = reload(ctx, config, now).and_then(|()| match &args.command {
        Command::Recall(a) => crate::recall(ctx, a, &mut io),
        Command::Inject(a) => crate::inject(ctx, a, &mut io),
        Command::Remember(a) => crate::remember(ctx, a, &mut io),
        Command::Extract(a) => crate::capture::extract(ctx, a, &mut io),
        Command::Memories(m) => match &m.command {
            None => crate::list(ctx, &m.list, &mut io),
            Some(c) => crate::memories(ctx, c, &mut io),
        },
        _ => unreachable!("declined above"),
    });
    if let Err(e) = done {
        // As `main` ends the command: a status of its own, else 1 with the error.
        match e.downcast_ref::<crate::Exit>() {
            Some(crate::Exit(code)) => reply.status = *code,
            None => {
                let _ = writeln!(err, "error: {e:#}");
                reply.status = 1;
            }
        }
    }
    reply.stdout = String::from_utf8_lossy(&out).into_owned();
    reply.stderr = String::from_utf8_lossy(&err).into_owned();
    (reply, what.to_string())
}

/// Reads the configuration file again when it changed since it was read (the model stays
/// loaded); an invalid file fails the request as it would fail the command.
fn reload(ctx: &mut Ctx, config: &mut ConfigStamp, now: ConfigStamp) -> Result<()> {
    if now == *config {
        return Ok(());
    }
    let loaded = config_file::load(now.path.as_deref())?;
    ctx.engine = ctx.engine.reconfigured(loaded)?;
    *config = now;
    Ok(())
}

/// What [`forward`] did with a command.
pub enum Forward {
    /// A server ran it: its exit status, with its output written here.
    Answered(i32),
    /// It runs here; then, when set, a server starts for the next command.
    Here(Option<Start>),
}

/// Hands `recall`, `inject`, `remember`, `extract` or `memories` to a server for this store,
/// if one answers. The command runs here when there is no server (a hybrid-mode one then
/// says to start one: [`Start`]), when the server declined or failed to answer (said on
/// stderr), with `ORO_MEM_SERVER=off`, and for any other command. `stdin` receives what was
/// read from standard input, if anything, for the command to use when it runs here.
pub fn forward(cli: &Cli, stdin: &mut Option<String>) -> Forward {
    let mut start = None;
    match hand_over(cli, stdin, &mut start) {
        Some(status) => Forward::Answered(status),
        None => Forward::Here(start),
    }
}

/// [`forward`]: the server's exit status, or `None` to run here, with `start` set when a
/// server should be started after.
fn hand_over(cli: &Cli, stdin: &mut Option<String>, start: &mut Option<Start>) -> Option<i32> {
    // Whether the command reads standard input: a query, task, content or file of `-`, or a
    // hook's JSON.
    let reads_stdin = match &cli.command {
        Command::Recall(a) => a.query == "-",
        Command::Inject(a) => a.hook.is_some() || a.task.as_deref() == Some("-"),
        Command::Remember(a) => a.content == "-",
        Command::Extract(a) => a.file == Path::new("-"),
        Command::Memories(_) => false,
        _ => return None,
    };
    let writes = served(&cli.command).is_some_and(|s| s.writes);
    let switch = Switch::from_env();
    if switch == Switch::Off {
        return None;
    }
    let db = config_file::resolve_db(cli.db.as_deref(), cli.config.as_deref()).ok()?;
    let store = canonical(&db);
    let socket = socket_path(&store);
    let Ok(stream) = UnixStream::connect(&socket) else {
        if switch == Switch::Auto {
            *start = Start::wanted(cli, &db, &store);
        }
        return None;
    };
    if reads_stdin {
        // Bounded: past the limit, the command runs here and says the input is too large.
        let bytes = crate::input::read_bounded(&mut std::io::stdin()).ok()?;
        let whole = bytes.len() <= MAX_INPUT_BYTES;
        *stdin = Some(crate::input::lossy(bytes));
        if !whole {
            return None;
        }
    }
    let args: Option<Vec<String>> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string().ok())
        .collect();
    let request = Request {
        db: store,
        config: config_file::resolve_config(cli.config.as_deref(), &db).map(|p| canonical(&p)),
        args: args?,
        stdin: stdin.clone(),
        cwd: std::env::current_dir().ok(),
        protocol: PROTOCOL,
        build: build().to_string(),
    };
    match exchange(stream, &request) {
        Ok(Exchange::Replied(Reply {
            declined: Some(_), ..
        })) => None,
        Ok(Exchange::Replied(reply)) => {
            print!("{}", reply.stdout);
            err!("{}", reply.stderr);
            let _ = std::io::stdout().flush();
            Some(reply.status)
        }
        Ok(Exchange::NotTaken(e)) => {
            errln!(
                "oro-mem: the server on {} did not take the request ({e:#}); answering here",
                socket.display()
            );
            None
        }
        Err(e) if !writes => {
            // Running it again costs only time.
            errln!(
                "oro-mem: the server on {} failed to answer ({e:#}); answering here",
                socket.display()
            );
            None
        }
        Err(e) => {
            errln!("error: {e:#}");
            Some(1)
        }
    }
}

/// A server to start in the background once the command has answered.
pub struct Start {
    /// The store, made absolute.
    store: PathBuf,
    /// Its configuration file, made absolute; `None` for the defaults.
    config: Option<PathBuf>,
}

impl Start {
    /// A server for the store at `store` (`db` as resolved), when the command is one that
    /// loads the embedding model (`recall`, `inject`, `remember`, `extract`), the
    /// configuration's mode needs the model, `serve.auto_start` is on and the store exists.
    /// Whatever is wrong with the configuration is left for the command to say.
    fn wanted(cli: &Cli, db: &Path, store: &Path) -> Option<Start> {
        if !matches!(
            cli.command,
            Command::Recall(_) | Command::Inject(_) | Command::Remember(_) | Command::Extract(_)
        ) {
            return None;
        }
        let config = config_file::resolve_config(cli.config.as_deref(), db).map(|p| canonical(&p));
        let loaded = config_file::load(config.as_deref()).ok()?;
        if loaded.mode == oro_mem_core::Mode::Fts || !loaded.serve.auto_start {
            return None;
        }
        file_identity(store)?;
        Some(Start {
            store: store.to_path_buf(),
            config,
        })
    }

    /// Starts the server, unless one holds the store's lock by now (another command started
    /// it), without waiting for it; the next command finds it. A failure is said in one
    /// line.
    pub fn start(self) {
        if lock_is_free(&self.store) {
            spawn(&self.store, self.config.as_deref());
        }
    }
}

/// Starts `oro-mem serve --auto` for `store` with configuration `config` in the background.
fn spawn(store: &Path, config: Option<&Path>) {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let log = side_file(store, "serve.log");
    let log = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .open(&log);
    let mut command = std::process::Command::new(exe);
    // Through the environment, not the arguments, which every user of the machine can read
    // (a PostgreSQL URL may hold a password).
    command.env("ORO_MEM_DB", store);
    match config {
        Some(path) => command.env("ORO_MEM_CONFIG", path),
        None => command.env_remove("ORO_MEM_CONFIG"),
    };
    {
        use std::os::unix::process::CommandExt;
        use std::process::Stdio;

        command
            .args(["serve", "--auto"])
            // Nothing of the command's: a hook's caller waits for its output to close.
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log.map_or_else(|_| Stdio::null(), Stdio::from))
            // Its own process group: a Ctrl-C or a hook runner's kill of this command's
            // group leaves it running.
            .process_group(0);
    }
    // Not waited for: when this command ends, the server is the init process's child.
    if let Err(e) = command.spawn() {
        errln!("oro-mem: cannot start a server in the background: {e}");
    }
}

/// How a request handed to the server ended.
enum Exchange {
    /// The server answered, or declined.
    Replied(Reply),
    /// The server did not take it in time (or could not be talked to): it will not run it,
    /// and the command runs here. Why, for the message.
    NotTaken(anyhow::Error),
}

/// Hands `request` to the server on `stream` (see the module's protocol).
///
/// # Errors
///
/// When the server took the request (`go` was sent) and then did not reply in
/// [`REPLY_TIMEOUT`], or the connection failed: the request may have run there, so it must
/// not run here.
fn exchange(stream: UnixStream, request: &Request) -> Result<Exchange> {
    let mut text = serde_json::to_string(request)?;
    text.push('\n');
    if text.len() as u64 > MAX_REQUEST_BYTES {
        // Escaped, the input grew past what the server reads.
        return Ok(Exchange::NotTaken(anyhow::anyhow!(
            "the request is larger than the server reads"
        )));
    }
    let wait = ready_timeout();
    stream.set_read_timeout(Some(wait))?;
    let mut reader = BufReader::new(&stream);
    let first = (&stream)
        .write_all(text.as_bytes())
        .map_err(anyhow::Error::from)
        .and_then(|()| read_reply(&mut reader, wait));
    let first = match first {
        Ok(reply) => reply,
        // Closing the connection (on return) is what tells the server not to run it.
        Err(e) => return Ok(Exchange::NotTaken(e)),
    };
    if !first.ready {
        return Ok(Exchange::Replied(first));
    }
    if let Err(e) = (&stream).write_all(b"go\n") {
        // The server gave up waiting for it: it will not run the request.
        return Ok(Exchange::NotTaken(e.into()));
    }
    stream.set_read_timeout(Some(REPLY_TIMEOUT))?;
    let reply = read_reply(&mut reader, REPLY_TIMEOUT).context(
        "the server took the request and then did not answer; it is not run again here, as \
         the server may still complete it",
    )?;
    Ok(Exchange::Replied(reply))
}

/// Reads one reply line, a timeout said as one.
fn read_reply(reader: &mut impl BufRead, waited: Duration) -> Result<Reply> {
    let mut line = String::new();
    match reader.read_line(&mut line) {
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            bail!("no answer within {:.1} s", waited.as_secs_f64())
        }
        Err(e) => return Err(e.into()),
        Ok(0) => bail!("the server closed the connection"),
        Ok(_) => {}
    }
    serde_json::from_str(&line).context("unreadable reply")
}

/// [`READY_TIMEOUT`], or what [`ENV_TIMEOUT`] says.
fn ready_timeout() -> Duration {
    std::env::var(ENV_TIMEOUT)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(READY_TIMEOUT, Duration::from_secs_f64)
}
