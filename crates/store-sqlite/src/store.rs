//! [`Store`]: opening a memory database, reading, listing and updating memories, statistics.
//! Writing new memories is in `write.rs`, finding candidates for recall in `search.rs`.

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use oro_mem_core::memory::MAX_ACCESS_COUNT;
use oro_mem_core::store::{ListOrder, Stats};
use oro_mem_core::{Error, ErrorKind, Filter, Memory, MemoryId, Result, Status, Timestamp};
use rusqlite::{
    params, params_from_iter, Connection, OpenFlags, OptionalExtension, TransactionBehavior,
};

use crate::filter::Where;
use crate::mirror::{self, Mirror};
use crate::row::{memory_from_row, MEMORY_COLUMNS};
use crate::schema::{self, MigrateError, SCHEMA_VERSION};
use crate::vectors;
use crate::write::{self, Place};
use oro_mem_text::Analyzer;

/// How long a writer waits for another process's lock before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Converts SQLite errors into [`ErrorKind::Storage`] errors with context.
pub(crate) trait SqlContext<T> {
    fn context(self, what: &str) -> Result<T>;
}

impl<T> SqlContext<T> for rusqlite::Result<T> {
    fn context(self, what: &str) -> Result<T> {
        self.map_err(|e| sqlite_error(what, e))
    }
}

/// `e`, from doing `what`, as this crate's error: [`ErrorKind::ReadOnly`] when the store
/// cannot be written, else [`ErrorKind::Storage`]. It carries SQLite's message, never the SQL
/// that failed: that means nothing to the person reading it, and can be very long.
pub(crate) fn sqlite_error(what: &str, e: rusqlite::Error) -> Error {
    let (kind, what) = if is_read_only(&e) {
        (
            ErrorKind::ReadOnly,
            format!("{what}: the store is read-only where it is"),
        )
    } else {
        (ErrorKind::Storage, what.to_string())
    };
    match e {
        rusqlite::Error::SqlInputError { error, msg, .. } => {
            Error::new(kind, format!("{what}: {msg}")).with_source(error)
        }
        e => Error::new(kind, format!("{what}: {e}")).with_source(e),
    }
}

/// True for SQLite's "attempt to write a readonly database" in all its forms (a read-only
/// file, directory, filesystem or connection).
fn is_read_only(e: &rusqlite::Error) -> bool {
    e.sqlite_error_code() == Some(rusqlite::ErrorCode::ReadOnly)
}

/// What keeps a database from being opened, said so that a full or failing disk is not taken
/// for a damaged file: "PATH is not a usable SQLite database" is for a file SQLite cannot use.
fn unusable(shown: &str, e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DiskFull) => {
            format!("{shown} cannot be opened: the disk it is on is full")
        }
        Some(rusqlite::ErrorCode::SystemIoFailure) => format!(
            "{shown} cannot be opened: the disk it is on failed to read or write (is it full, \
             or unreachable?)"
        ),
        _ => format!("{shown} is not a usable SQLite database"),
    }
}

/// The oldest schema [`Store::open_read_only`] reads as it is: every table and column that
/// reading uses is there from this version on (later versions add only what writers use).
pub const READ_ONLY_FROM: u32 = 4;

/// The first schema whose full-text index has a column per field of
/// [`LEXICAL_FIELDS`](oro_mem_text::LEXICAL_FIELDS), weighted as it says; a store opened
/// read-only may be older.
pub(crate) const FIELDS_FROM: u32 = 9;

/// The first schema with the `merged_into` column (and the `merged` status).
pub(crate) const MERGED_FROM: u32 = 10;

/// The first schema with the `superseded_by` and `superseded_at` columns.
pub(crate) const SUPERSEDED_FROM: u32 = 12;

/// Lets this build read a schema from before version 12 (no `superseded_by` or
/// `superseded_at` columns; before version 10, no `merged_into`; before version 9, no
/// `summary`, `files`, `entities` or `return_count` either; before version 8, no `session`)
/// without writing to it: a
/// temporary view named `memories`, which SQLite resolves before the table of the same name,
/// adds the missing columns as none (no memory of an older store has them), and the return
/// count as the access count (which counted returns then). Only the connection sees it, and
/// it lives in memory.
pub(crate) fn shim_older_schema(conn: &Connection, version: u32) -> Result<()> {
    let missing = match version {
        SUPERSEDED_FROM.. => return Ok(()),
        MERGED_FROM.. => "NULL AS superseded_by, NULL AS superseded_at",
        FIELDS_FROM => "NULL AS merged_into, NULL AS superseded_by, NULL AS superseded_at",
        8 => {
            "NULL AS summary, '[]' AS files, '[]' AS entities, access_count AS return_count, \
             NULL AS merged_into, NULL AS superseded_by, NULL AS superseded_at"
        }
        _ => {
            "NULL AS session, NULL AS summary, '[]' AS files, '[]' AS entities, \
             access_count AS return_count, NULL AS merged_into, NULL AS superseded_by, \
             NULL AS superseded_at"
        }
    };
    conn.execute_batch(&format!(
        "CREATE TEMP VIEW memories AS SELECT *, {missing} FROM main.memories"
    ))
    .context("cannot read a store of an older schema")
}

/// oro-mem's `PRAGMA application_id`, "oro-" in ASCII: set by schema version 6, it tells an
/// oro-mem store from other applications' SQLite files.
pub const APPLICATION_ID: i32 = 0x6F72_6F2D;

/// Refuses, without changing anything, a database that is not an oro-mem store this build can
/// use: another application's (its `application_id`, or tables without an oro-mem schema), or
/// one written by a newer oro-mem. An empty database passes: it becomes a store. Returns the
/// schema version.
pub(crate) fn check_identity(conn: &Connection, shown: &str) -> Result<u32> {
    let header = |e: rusqlite::Error| sqlite_error(&unusable(shown, &e), e);
    let version = schema::version(conn).map_err(header)?;
    if version > SCHEMA_VERSION {
        return Err(too_new(shown, version));
    }
    let application: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(header)?;
    let foreign = |why: String| {
        Error::new(
            ErrorKind::Storage,
            format!("{shown} is not an oro-mem database ({why}); oro-mem leaves it as it is"),
        )
    };
    if application != 0 && application != APPLICATION_ID {
        return Err(foreign(format!(
            "it belongs to another application: SQLite application_id {application:#x}"
        )));
    }
    if application == 0 {
        // Stores from before version 6 have no application id: they have the memories table.
        let (tables, memories): (i64, i64) = conn
            .query_row(
                "SELECT count(*), coalesce(sum(type = 'table' AND name = 'memories'), 0) \
                 FROM sqlite_schema",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(header)?;
        if version == 0 && tables > 0 {
            return Err(foreign("it has tables but no oro-mem schema".to_string()));
        }
        if version > 0 && memories == 0 {
            return Err(foreign(format!(
                "it has schema version {version} but no memories table"
            )));
        }
    }
    Ok(version)
}

/// The error for a store whose schema is newer than this build's.
fn too_new(shown: &str, version: u32) -> Error {
    Error::new(
        ErrorKind::Storage,
        format!(
            "{shown} has schema version {version}, newer than this oro-mem understands \
             ({SCHEMA_VERSION}); upgrade oro-mem"
        ),
    )
}

/// The error for a store [`Store::open`] cannot write, for `cause`.
fn read_only_location(shown: &str, cause: &dyn std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::ReadOnly,
        format!(
            "{shown} is in a read-only location, so it cannot be written ({cause}); commands \
             that only read (recall, inject, export, stats, memories list/show) open it \
             read-only"
        ),
    )
}

/// An SQLite URI opening `path` as immutable, its characters percent-encoded where a URI
/// needs it.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

/// The `ORDER BY` of a listing.
fn order_sql(order: ListOrder) -> &'static str {
    match order {
        ListOrder::Newest => "m.created_at DESC, m.id DESC",
        ListOrder::Oldest => "m.created_at ASC, m.id ASC",
        ListOrder::MostAccessed => "m.access_count DESC, m.id ASC",
        ListOrder::Confidence => "m.confidence DESC, m.id ASC",
    }
}

/// A memory database: one SQLite file (or memory) with the `memories` table and its FTS5
/// index.
///
/// Every write runs in a `BEGIN IMMEDIATE` transaction; readers never block writers (WAL).
/// Several processes may use one database at once.
pub struct Store {
    pub(crate) conn: Connection,
    path: Option<PathBuf>,
    migrated_from: u32,
    read_only: bool,
    /// The index as duplicate checks (and, once [`Store::set_warm`], searches) read it, kept
    /// while the index is unchanged; see [`Mirror`].
    pub(crate) mirror: RefCell<Option<Mirror>>,
    /// Whether duplicate checks may use a mirror (tests turn it off to compare).
    pub(crate) mirror_enabled: bool,
    /// Whether lexical searches use the mirror ([`Store::set_warm`]).
    pub(crate) warm: bool,
    /// The counts [`Store::count_up_to`] made since the database last changed.
    counts: RefCell<Counts>,
    /// The index's tokenizer, for scoring given memories ([`Store::lexical_scores`]), made
    /// when first needed.
    analyzer: OnceCell<Analyzer>,
}

/// Counts of memories by filter, valid while the database is as it was when they were made:
/// no commit by another connection (`PRAGMA data_version`) and no row changed by this one
/// (`total_changes`, which counts every row its statements wrote, rolled back or not).
#[derive(Debug, Default)]
struct Counts {
    at: Option<(i64, u64)>,
    /// `(conditions, their parameters, most)` → count.
    made: HashMap<(String, String, u64), u64>,
}

impl Counts {
    /// How many filters it keeps counts of before it starts again.
    const KEPT: usize = 64;
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("migrated_from", &self.migrated_from)
            .field("read_only", &self.read_only)
            .finish()
    }
}

/// Creates `path` as an empty file only its owner may read and write, unless it exists. An
/// empty file is an empty SQLite database, which SQLite then fills.
fn create_private(path: &Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        // It exists (on a read-only file system, the error may say that instead).
        Err(_) if path.exists() => Ok(()),
        Err(e) => Err(e),
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// A new database is made readable by its owner only (mode 0600 on Unix), and so are the
    /// files SQLite keeps beside it, which take the database's mode: memories hold what agents
    /// learned about private code. An existing database keeps the mode it has.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the file cannot be opened, is not a SQLite database, or was
    /// written by a newer oro-mem.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        create_private(path).map_err(|e| {
            Error::new(
                ErrorKind::Storage,
                format!("cannot create {}: {e}", path.display()),
            )
        })?;
        let conn =
            Connection::open(path).context(&format!("cannot open database {}", path.display()))?;
        Store::init(conn, Some(path.to_path_buf()))
    }

    /// Writes the write-ahead log into the database and empties it, before the store is closed
    /// because its path now names another file: SQLite does not checkpoint a database that
    /// was moved when it closes it, and would leave the log by the path, where it would be
    /// read as part of the file now there. A read-only store has written nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the log cannot be emptied: another connection still reads
    /// from it.
    pub fn let_go(&mut self) -> Result<()> {
        if self.read_only || self.path.is_none() {
            return Ok(());
        }
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))
            .context("cannot write the log into the database")?;
        if busy != 0 {
            return Err(Error::new(
                ErrorKind::Storage,
                "cannot empty the write-ahead log: another connection reads from it",
            ));
        }
        Ok(())
    }

    /// A private in-memory database, for tests and one-off evaluation.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] if SQLite fails to start.
    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory().context("cannot open in-memory database")?;
        Store::init(conn, None)
    }

    fn init(mut conn: Connection, path: Option<PathBuf>) -> Result<Store> {
        let shown = path
            .as_ref()
            .map_or_else(|| ":memory:".to_string(), |p| p.display().to_string());
        conn.busy_timeout(BUSY_TIMEOUT)
            .context("cannot set busy_timeout")?;
        // Before anything is changed: a database of another application, or of a newer
        // oro-mem, is refused as it was found.
        check_identity(&conn, &shown)?;
        // Switching to WAL needs a moment of exclusive access; the busy timeout covers it.
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))
            .map_err(|e| {
                if is_read_only(&e) {
                    read_only_location(&shown, &e)
                } else {
                    sqlite_error(&unusable(&shown, &e), e)
                }
            })?;
        // A file this process may not write opens read-only without an error of its own;
        // it must not pass for a writable store.
        if conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(false) {
            return Err(read_only_location(
                &shown,
                &"this process may not write the file",
            ));
        }
        conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .context("cannot set pragmas")?;
        let (from, _) = schema::migrate(&mut conn).map_err(|e| match e {
            MigrateError::TooNew(v) => too_new(&shown, v),
            MigrateError::Sql(e) if is_read_only(&e) => read_only_location(&shown, &e),
            MigrateError::Sql(e) => sqlite_error(&format!("cannot migrate {shown}"), e),
            MigrateError::Step(e) => e,
        })?;
        Store::finish(conn, path, from, false)
    }

    /// Opens the database at `path` for reading only, for a store where this process may not
    /// write (a read-only directory, file or filesystem): what [`Store::open`] refuses with
    /// [`ErrorKind::ReadOnly`]. The database is never written, and every write fails with
    /// [`ErrorKind::ReadOnly`]. (In a directory it may write, SQLite may still create its
    /// `-wal` and `-shm` files next to a database in WAL mode, to read it safely while a
    /// writer elsewhere changes it.)
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the file is missing or not an oro-mem database, when its
    /// schema is newer than this build's, or older than [`READ_ONLY_FROM`] (it would need a
    /// migration, which cannot be written); [`ErrorKind::ReadOnly`] when it has a
    /// write-ahead log that cannot be read without write access.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // Reading the schema version is what fails when the database cannot be read here.
        let readable = |conn: Connection| -> rusqlite::Result<Connection> {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            schema::version(&conn)?;
            Ok(conn)
        };
        let first = Connection::open_with_flags(path, flags).and_then(readable);
        let conn = match first {
            Ok(opened) => opened,
            // A database in WAL mode needs its shared-memory file, which a read-only
            // directory cannot hold. With no log to read, the file alone is the whole
            // database: open it as immutable (no locks, no side files).
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
                ) =>
            {
                let wal = PathBuf::from(format!("{}-wal", path.display()));
                if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
                    return Err(Error::new(
                        ErrorKind::ReadOnly,
                        format!(
                            "{shown} has changes in its write-ahead log ({}) that cannot be \
                             read without write access to its directory; open it once where \
                             it can be written",
                            wal.display()
                        ),
                    )
                    .with_source(e));
                }
                Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
                    .and_then(readable)
                    .context(&format!("cannot open {shown} for reading"))?
            }
            Err(e) => return Err(e).context(&format!("cannot open {shown} for reading")),
        };
        let version = check_identity(&conn, &shown)?;
        if version < READ_ONLY_FROM {
            return Err(Error::new(
                ErrorKind::Storage,
                format!(
                    "{shown} has schema version {version}, which this oro-mem reads only after \
                     migrating it to {SCHEMA_VERSION}, and it cannot be written where it is; \
                     open it once where it can be written"
                ),
            ));
        }
        shim_older_schema(&conn, version)?;
        Store::finish(conn, Some(path.to_path_buf()), version, true)
    }

    fn finish(
        conn: Connection,
        path: Option<PathBuf>,
        from: u32,
        read_only: bool,
    ) -> Result<Store> {
        // Reads go through the OS page cache without a copy per page; scans of the vector
        // index are several times faster this way. It is only a hint: SQLite falls back to
        // read() where mapping is not possible.
        conn.pragma_update(None, "mmap_size", 0x7fff_0000i64)
            .context("cannot set mmap_size")?;
        Ok(Store {
            conn,
            path,
            migrated_from: from,
            read_only,
            mirror: RefCell::new(None),
            counts: RefCell::default(),
            analyzer: OnceCell::new(),
            mirror_enabled: true,
            warm: false,
        })
    }

    /// True when the full-text index is of this build's schema (a store opened read-only
    /// keeps its own), with a column per lexical field.
    pub(crate) fn indexes_every_field(&self) -> bool {
        !self.read_only || self.migrated_from >= FIELDS_FROM
    }

    /// The index's tokenizer, made on first use.
    pub(crate) fn analyzer(&self) -> Result<&Analyzer> {
        if let Some(a) = self.analyzer.get() {
            return Ok(a);
        }
        let a = Analyzer::new()?;
        Ok(self.analyzer.get_or_init(|| a))
    }

    /// True after [`Store::set_warm`]`(true)`.
    pub fn is_warm(&self) -> bool {
        self.warm
    }

    /// For a process that keeps the store open across many searches (`oro-mem serve`, `mcp`):
    /// lexical searches then read an in-memory copy of the full-text index's statistics and of
    /// the lists of the words searched, kept while the index is unchanged, and score as
    /// FTS5's `bm25()` does (the same results, in the same order). The first search pays for
    /// reading every row's length (about 20 ms per 100k memories) and each word's list once;
    /// a one-off command should not. A search the copy cannot answer (a CJK phrase, a filter
    /// on more than the status and confidence) goes to FTS5 as before.
    pub fn set_warm(&mut self, warm: bool) {
        self.warm = warm;
    }

    /// True when the store was opened with [`Store::open_read_only`]: every write fails.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The database file, if not in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version found when the store was opened (before migrating).
    pub fn migrated_from(&self) -> u32 {
        self.migrated_from
    }

    /// The underlying connection, for tools that need SQL the store does not offer.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// The memory with `id`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn get(&self, id: MemoryId) -> Result<Memory> {
        self.conn
            .prepare_cached(&format!(
                "SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ?"
            ))
            .and_then(|mut s| s.query_row([id], memory_from_row).optional())
            .context("cannot read memory")?
            .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))
    }

    /// Memories matching `filter`, in `order`, paged.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn list(
        &self,
        filter: &Filter,
        order: ListOrder,
        limit: usize,
        offset: usize,
    ) -> Result<Vec<Memory>> {
        let mut w = Where::from_filter(filter)?;
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {} ORDER BY {} LIMIT ? OFFSET ?",
            w.sql,
            order_sql(order)
        );
        w.params
            .push(rusqlite::types::Value::Integer(to_i64(limit)));
        w.params
            .push(rusqlite::types::Value::Integer(to_i64(offset)));
        let mut stmt = self.conn.prepare_cached(&sql).context("cannot list")?;
        let rows = stmt
            .query_map(params_from_iter(w.params), memory_from_row)
            .context("cannot list")?;
        rows.collect::<rusqlite::Result<_>>().context("cannot list")
    }

    /// Calls `f` with every memory matching `filter`, oldest first, without loading them all.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails, or the first error `f` returns.
    pub fn for_each(
        &self,
        filter: &Filter,
        mut f: impl FnMut(Memory) -> Result<()>,
    ) -> Result<u64> {
        let w = Where::from_filter(filter)?;
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories m WHERE {} ORDER BY m.id",
            w.sql
        );
        let mut stmt = self.conn.prepare(&sql).context("cannot read memories")?;
        let mut rows = stmt
            .query(params_from_iter(w.params))
            .context("cannot read memories")?;
        let mut n = 0;
        while let Some(row) = rows.next().context("cannot read memories")? {
            f(memory_from_row(row).context("cannot read memory")?)?;
            n += 1;
        }
        Ok(n)
    }

    /// Number of memories matching `filter`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn count(&self, filter: &Filter) -> Result<u64> {
        self.count_where(&Where::from_filter(filter)?)
    }

    /// Number of memories meeting `w`.
    fn count_where(&self, w: &Where) -> Result<u64> {
        let sql = format!("SELECT count(*) FROM memories m WHERE {}", w.sql);
        self.conn
            .query_row(&sql, params_from_iter(&w.params), |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .context("cannot count memories")
    }

    /// How many memories match `filter`, counted up to `most`: whether there are `most`
    /// is one read of that many index entries or rows (`OFFSET`, about 30 ns each), and only
    /// fewer are counted. The count is kept until the database changes, so that a warm
    /// store (`serve`, `mcp`) asked again with the same filter reads nothing.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`] for a filter [`Filter::check`] refuses;
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn count_up_to(&self, filter: &Filter, most: u64) -> Result<u64> {
        let w = Where::from_filter(filter)?;
        if most == 0 {
            return Ok(0);
        }
        let at = (mirror::data_version(&self.conn)?, self.conn.total_changes());
        let key = (w.sql.clone(), format!("{:?}", w.params), most);
        {
            let mut counts = self.counts.borrow_mut();
            if counts.at != Some(at) {
                counts.made.clear();
                counts.at = Some(at);
            }
            if let Some(&n) = counts.made.get(&key) {
                return Ok(n);
            }
        }
        let sql = format!(
            "SELECT 1 FROM memories m WHERE {} LIMIT 1 OFFSET {}",
            w.sql,
            (most - 1).min(i64::MAX as u64)
        );
        let reached = self
            .conn
            .query_row(&sql, params_from_iter(&w.params), |_| Ok(()))
            .optional()
            .context("cannot count memories")?
            .is_some();
        let n = if reached { most } else { self.count_where(&w)? };
        let mut counts = self.counts.borrow_mut();
        if counts.made.len() >= Counts::KEPT {
            counts.made.clear();
        }
        counts.made.insert(key, n);
        Ok(n)
    }

    /// Deletes a memory (and its index entries). Returns the memories whose embeddings it
    /// dropped, in the same transaction, by ascending id: the next
    /// [`CONTEXT_MEMORIES`](oro_mem_core::memory::CONTEXT_MEMORIES) active memories of its
    /// session, when it was active, whose embeddings were made with it among the memories
    /// before them.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn forget(&mut self, id: MemoryId) -> Result<Vec<MemoryId>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        let place = Place::read(&tx, id)?
            .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))?;
        tx.execute("DELETE FROM memories WHERE id = ?1", [id])
            .context("cannot delete memory")?;
        vectors::remove(&tx, &[id])?;
        let unembedded = if place.active {
            write::unembed_next(&tx, &place)?
        } else {
            Vec::new()
        };
        tx.commit().context("cannot commit")?;
        Ok(unembedded)
    }

    /// Pins or unpins a memory. Pinned memories never decay.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn set_pinned(&mut self, id: MemoryId, pinned: bool) -> Result<()> {
        self.update_one(
            id,
            "UPDATE memories SET pinned = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, pinned, Timestamp::now().as_second()],
        )
    }

    /// Archives or reactivates a memory. Returns the memories whose embeddings it dropped, in
    /// the same transaction, by ascending id: when the status changes, the next
    /// [`CONTEXT_MEMORIES`](oro_mem_core::memory::CONTEXT_MEMORIES) active memories of its
    /// session (the memories before them are now others), and a reactivated memory itself
    /// (those before it may have changed while it was archived).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::NotFound`] when there is none.
    pub fn set_status(&mut self, id: MemoryId, status: Status) -> Result<Vec<MemoryId>> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        let place = Place::read(&tx, id)?
            .ok_or_else(|| Error::not_found(format!("no memory with id {id}")))?;
        // A memory that is not merged is merged into nothing (restored, or archived), and
        // one not superseded is superseded by nothing.
        tx.execute(
            "UPDATE memories SET status = ?2, updated_at = ?3, \
               merged_into = CASE WHEN ?2 = 'merged' THEN merged_into END, \
               superseded_by = CASE WHEN ?2 = 'superseded' THEN superseded_by END, \
               superseded_at = CASE WHEN ?2 = 'superseded' THEN superseded_at END \
             WHERE id = ?1",
            params![id, status.as_str(), Timestamp::now().as_second()],
        )
        .context("cannot update memory")?;
        let activated = status == Status::Active;
        let mut unembedded = Vec::new();
        if place.active != activated {
            unembedded = write::unembed_next(&tx, &place)?;
            if activated {
                unembedded.extend(write::unembed(&tx, &[id])?);
                unembedded.sort_unstable();
            }
        }
        tx.commit().context("cannot commit")?;
        Ok(unembedded)
    }

    fn update_one(&mut self, id: MemoryId, sql: &str, params: impl rusqlite::Params) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        let n = tx.execute(sql, params).context("cannot update memory")?;
        if n == 0 {
            return Err(Error::not_found(format!("no memory with id {id}")));
        }
        tx.commit().context("cannot commit")
    }

    /// Records that recall returned `ids`: `return_count += 1` (saturating at
    /// [`MAX_ACCESS_COUNT`]), in one transaction.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails; nothing is changed then.
    pub fn record_returned(&mut self, ids: &[MemoryId]) -> Result<()> {
        self.add_to_counts(
            ids,
            "UPDATE memories SET return_count = min(return_count + 1, ?2) WHERE id = ?1",
            None,
        )
    }

    /// Records that `ids` were used: `access_count += 1` (saturating at
    /// [`MAX_ACCESS_COUNT`]), `last_accessed = now`, in one transaction.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails; nothing is changed then.
    pub fn record_used(&mut self, ids: &[MemoryId], now: Timestamp) -> Result<()> {
        self.add_to_counts(
            ids,
            "UPDATE memories SET access_count = min(access_count + 1, ?2), last_accessed = ?3 \
             WHERE id = ?1",
            Some(now),
        )
    }

    /// Runs `update` (parameters: the id, [`MAX_ACCESS_COUNT`], and `now` if given) for each
    /// of `ids`, in one transaction.
    fn add_to_counts(
        &mut self,
        ids: &[MemoryId],
        update: &str,
        now: Option<Timestamp>,
    ) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        {
            let mut stmt = tx.prepare_cached(update).context("cannot record access")?;
            let max = MAX_ACCESS_COUNT as i64;
            for id in ids {
                match now {
                    Some(now) => stmt.execute(params![id, max, now.as_second()]),
                    None => stmt.execute(params![id, max]),
                }
                .context("cannot record access")?;
            }
        }
        tx.commit().context("cannot commit")
    }

    /// Counts describing the store.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn stats(&self) -> Result<Stats> {
        let c = &self.conn;
        let one = |sql: &str| -> Result<u64> {
            c.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n.max(0) as u64)
                .context("cannot read stats")
        };
        let pairs = |sql: &str| -> Result<Vec<(String, u64)>> {
            let mut s = c.prepare(sql).context("cannot read stats")?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))
                .context("cannot read stats")?;
            rows.collect::<rusqlite::Result<_>>()
                .context("cannot read stats")
        };
        let range = c
            .query_row(
                "SELECT min(created_at), max(created_at) FROM memories",
                [],
                |r| Ok((r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?)),
            )
            .context("cannot read stats")?;
        Ok(Stats {
            total: one("SELECT count(*) FROM memories")?,
            active: one("SELECT count(*) FROM memories WHERE status = 'active'")?,
            archived: one("SELECT count(*) FROM memories WHERE status = 'archived'")?,
            merged: one("SELECT count(*) FROM memories WHERE status = 'merged'")?,
            superseded: one("SELECT count(*) FROM memories WHERE status = 'superseded'")?,
            pinned: one("SELECT count(*) FROM memories WHERE pinned")?,
            embedded: one("SELECT count(*) FROM memories WHERE embedding IS NOT NULL")?,
            embedded_by_model: pairs(
                "SELECT embedding_model, count(*) FROM memories \
                 WHERE embedding IS NOT NULL AND embedding_model IS NOT NULL \
                 GROUP BY embedding_model ORDER BY count(*) DESC, embedding_model",
            )?,
            by_type: pairs(
                "SELECT type, count(*) FROM memories WHERE status = 'active' \
                 GROUP BY type ORDER BY count(*) DESC, type",
            )?,
            by_namespace: pairs(
                "SELECT namespace, count(*) FROM memories GROUP BY namespace \
                 ORDER BY count(*) DESC, namespace",
            )?,
            schema_version: schema::version(c).context("cannot read schema version")?,
            size_bytes: one(
                "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
            )?,
            created_range: match range {
                (Some(a), Some(b)) => Some((Timestamp(a), Timestamp(b))),
                _ => None,
            },
        })
    }

    /// Rebuilds the FTS5 index from the memories table, each memory's indexed text made again
    /// first ([`index_text`](oro_mem_text::index_text)), and the vector index.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when SQLite fails.
    pub fn rebuild_index(&mut self) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .context("cannot start write transaction")?;
        schema::index_texts(&tx)?;
        tx.execute(
            "INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')",
            [],
        )
        .context("cannot rebuild the full-text index")?;
        vectors::rebuild(&tx)?;
        tx.commit().context("cannot commit")
    }

    /// `PRAGMA integrity_check` plus FTS5's own check; `"ok"` when both pass.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`] when the check cannot run.
    pub fn integrity_check(&self) -> Result<String> {
        let sqlite: String = self
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .context("cannot run integrity_check")?;
        if sqlite != "ok" {
            return Ok(sqlite);
        }
        match self.conn.execute(
            "INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)",
            [],
        ) {
            Ok(_) => Ok("ok".to_string()),
            Err(e) => Ok(format!("full-text index: {e}")),
        }
    }
}

pub(crate) fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
