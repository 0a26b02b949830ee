//! The one place that knows which stores there are: a database location (a file, or a
//! `postgres://` URL) and the store behind it. Everything else holds a
//! [`AnyStore`].

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use oro_mem_core::store::{MemoryStore, OtherMemory};
use oro_mem_core::ErrorKind;
use oro_mem_store_postgres::{is_postgres_location, Location};

/// A store of either kind, as the commands hold it.
pub type AnyStore = Box<dyn MemoryStore + Send>;

/// What a command does with the store.
#[derive(Clone, Copy, PartialEq)]
pub enum Access {
    /// It writes: the store must be writable.
    Write,
    /// It only reads (recall's access counts aside): a store in a read-only location is
    /// opened read-only, and a missing one is an error (a mistyped path makes no store).
    Read,
    /// It serves reads and writes (`mcp`): as `Read` for a store in a read-only location,
    /// as `Write` otherwise.
    Serve,
    /// It makes the store when there is none (`init`, or `--create`), then writes. Nothing
    /// else makes a file store: a mistyped path is an error, not a new, empty store.
    Create,
}

/// Where the memories are.
#[derive(Debug)]
pub enum Db {
    /// A SQLite file.
    File(PathBuf),
    /// A PostgreSQL database.
    Postgres(Box<Location>),
}

impl Db {
    /// The database named by `location`: a `postgres://` (or `postgresql://`) URL, else a
    /// file path.
    pub fn parse(location: &Path) -> Result<Db> {
        match location.to_str() {
            Some(url) if is_postgres_location(url) => {
                Ok(Db::Postgres(Box::new(Location::parse(url)?)))
            }
            _ => Ok(Db::File(location.to_path_buf())),
        }
    }

    /// The file, for a SQLite store.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Db::File(path) => Some(path),
            Db::Postgres(_) => None,
        }
    }
}

impl std::fmt::Display for Db {
    /// The path, or the URL without its password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Db::File(path) => write!(f, "{}", path.display()),
            Db::Postgres(location) => write!(f, "{location}"),
        }
    }
}

/// Opens the store at `db` for `access`: a file store is created when missing (unless only
/// read), and opened read-only when its location is; a PostgreSQL store's tables are created
/// on first use.
pub fn open(db: &Db, access: Access) -> Result<AnyStore> {
    let path = match db {
        Db::Postgres(location) => {
            return Ok(Box::new(oro_mem_store_postgres::Store::open(location)?));
        }
        Db::File(path) => path,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if access == Access::Create {
            crate::private::create_dir(dir)?;
        } else if !dir.is_dir() {
            bail!(
                "directory {} does not exist (for a new store run `oro-mem init`, or check \
                 --db / ORO_MEM_DB)",
                dir.display()
            );
        }
    }
    if access != Access::Create && !path.exists() {
        // Only init (or --create) makes a store: a mistyped --db would otherwise answer from,
        // or write into, a new, empty store.
        bail!("{}", no_store(path));
    }
    use oro_mem_store_sqlite::Store;
    Ok(match Store::open(path) {
        Err(e)
            if matches!(access, Access::Read | Access::Serve)
                && e.kind() == ErrorKind::ReadOnly =>
        {
            Box::new(Store::open_read_only(path)?)
        }
        opened => Box::new(opened?),
    })
}

/// What a command says when there is no store at `path`.
pub fn no_store(path: &Path) -> String {
    format!(
        "no store at {} (for a new store run `oro-mem init`, or add --create; else check --db \
         / ORO_MEM_DB)",
        path.display()
    )
}

/// A schema of a PostgreSQL database that holds a scratch store, dropped with this.
#[derive(Debug)]
pub struct Scratch {
    location: Location,
    schema: String,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = self.location.drop_schema(&self.schema) {
            errln!("oro-mem: cannot drop scratch schema {}: {e}", self.schema);
        }
    }
}

/// A new, empty store: in memory, or with `postgres`, in a new schema of that database
/// (dropped with the [`Scratch`], which must outlive the store).
pub fn scratch(postgres: Option<&str>) -> Result<(AnyStore, Option<Scratch>)> {
    let Some(url) = postgres else {
        return Ok((
            Box::new(oro_mem_store_sqlite::Store::open_in_memory()?),
            None,
        ));
    };
    let Db::Postgres(location) = Db::parse(Path::new(url))? else {
        bail!("{url} is not a PostgreSQL URL (postgres://...)");
    };
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let schema = format!(
        "oro_mem_scratch_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let scratch = Scratch {
        location: *location,
        schema,
    };
    let store = oro_mem_store_postgres::Store::open(&scratch.location.in_schema(&scratch.schema))?;
    Ok((Box::new(store), Some(scratch)))
}

/// Every memory of another store, with its embedding, for a merge. A file is read as it is,
/// never migrated or written; a PostgreSQL database is opened as usual.
pub fn read_other(other: &Db) -> Result<Vec<OtherMemory>> {
    match other {
        Db::File(path) => Ok(oro_mem_store_sqlite::Store::read_other(path)?),
        Db::Postgres(location) => {
            let store = oro_mem_store_postgres::Store::open(location)?;
            let mut out = Vec::new();
            store.for_each_embedded(&mut |m| {
                out.push(m);
                Ok(())
            })?;
            Ok(out)
        }
    }
}
