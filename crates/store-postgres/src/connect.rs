//! Where the database is: a `postgres://` URL, its password from the URL, `PGPASSWORD` or the
//! password file, and how it is shown (never with the password).

use std::path::PathBuf;
use std::str::FromStr;

use oro_mem_core::{Error, Result};
use postgres::config::Host;
use postgres::Config;

use crate::store::pg_error;

/// True when `location` names a PostgreSQL database (`postgres://…` or `postgresql://…`)
/// rather than a file.
pub fn is_postgres_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

/// A parsed database URL.
#[derive(Clone)]
pub struct Location {
    pub(crate) config: Config,
    shown: String,
}

impl std::fmt::Debug for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Location").field(&self.shown).finish()
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Location {
    /// Parses `url` (`postgres://user[:password]@host[:port]/database[?options]`, as libpq
    /// takes it). Without a password in the URL, `PGPASSWORD` is used, else the matching line
    /// of the password file (`PGPASSFILE`, else `~/.pgpass`).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) for a URL that does
    /// not parse; the message never repeats the URL, which may hold a password.
    pub fn parse(url: &str) -> Result<Location> {
        if !is_postgres_url(url) {
            return Err(Error::invalid_input(
                "a PostgreSQL location starts with postgres:// or postgresql://",
            ));
        }
        let mut config = Config::from_str(url)
            .map_err(|e| Error::invalid_input(format!("the PostgreSQL URL is malformed: {e}")))?;
        if config.get_password().is_none() {
            if let Some(password) = std::env::var_os("PGPASSWORD") {
                config.password(password.to_string_lossy().as_bytes());
            } else if let Some(password) = password_file_entry(&config) {
                config.password(password.as_bytes());
            }
        }
        let shown = shown(&config);
        Ok(Location { config, shown })
    }

    /// This database with its tables in `schema` (made on first use): the session's
    /// `search_path` is set to it, in place of any the URL set.
    pub fn in_schema(&self, schema: &str) -> Location {
        let mut config = self.config.clone();
        // Backslash-escaped as libpq's `options` wants: spaces and backslashes.
        let escaped = schema.replace('\\', "\\\\").replace(' ', "\\ ");
        config.options(&format!("-c search_path={escaped}"));
        let shown = shown(&config);
        Location { config, shown }
    }

    /// Drops `schema` and everything in it, if it exists.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Storage`](oro_mem_core::ErrorKind::Storage) when the server cannot be
    /// reached or refuses.
    pub fn drop_schema(&self, schema: &str) -> Result<()> {
        let mut client = self
            .config
            .connect(postgres::NoTls)
            .map_err(|e| pg_error(&format!("cannot connect to {self}"), e))?;
        let drop: String = client
            .query_one(
                "SELECT format('DROP SCHEMA IF EXISTS %I CASCADE', $1::text)",
                &[&schema],
            )
            .map_err(|e| pg_error("cannot drop schema", e))?
            .get(0);
        client
            .batch_execute(&drop)
            .map_err(|e| pg_error(&format!("cannot drop schema {schema}"), e))
    }

    /// The user this connects as.
    pub fn user(&self) -> Option<&str> {
        self.config.get_user()
    }
}

/// `postgres://user@host:port/database`: what identifies the database, without the password.
fn shown(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config
        .get_user()
        .map(|u| format!("{u}@"))
        .unwrap_or_default();
    let db = config.get_dbname().or(config.get_user()).unwrap_or("");
    // Session settings (such as the schema) name no secret, and tell two stores apart.
    let options = config
        .get_options()
        .map(|o| format!(" (options {o})"))
        .unwrap_or_default();
    format!("postgres://{user}{host}:{port}/{db}{options}")
}

/// The password of the first line of the password file that matches `config`'s host, port,
/// database and user (`*` matches anything; `\:` and `\\` escape), as libpq reads it.
fn password_file_entry(config: &Config) -> Option<String> {
    let path = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pgpass")))?;
    let text = std::fs::read_to_string(path).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default();
    let db = config.get_dbname().unwrap_or(user);
    let wanted = [host.as_str(), port.as_str(), db, user];
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(split_pgpass_line)
        .find(|fields| {
            fields.len() == 5
                && fields[..4]
                    .iter()
                    .zip(wanted)
                    .all(|(f, w)| f == "*" || f == w)
        })
        .map(|mut fields| fields.remove(4))
}

fn split_pgpass_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one field").push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_never_shown() {
        let l = Location::parse("postgres://team:s3cr%3At@db.example:6543/memory").unwrap();
        assert_eq!(l.to_string(), "postgres://team@db.example:6543/memory");
        assert!(!format!("{l:?}").contains("s3cr"));
        let e = Location::parse("postgres://team:s3cret@db.example:notaport/x").unwrap_err();
        assert!(!e.to_string().contains("s3cret"), "{e}");
    }

    #[test]
    fn password_file_lines_match_with_wildcards_and_escapes() {
        assert_eq!(
            split_pgpass_line(r"db.example:*:memory:team:pa\:ss\\word"),
            ["db.example", "*", "memory", "team", r"pa:ss\word"]
        );
    }
}
