//! A PostgreSQL server for tests (feature `testing`): the one `scripts/postgres start` runs,
//! named by `ORO_MEM_TEST_PG_URL` (`scripts/test` sets it). Without it, [`TestServer::get`]
//! says so and gives `None`, so tests pass as skipped, unless `ORO_MEM_TEST_PG_REQUIRED` is set
//! (as `scripts/test` does), when it panics. Each store lives in a schema of its own, dropped
//! with the [`TestServer`].

use std::sync::atomic::{AtomicU32, Ordering};

use crate::{Location, Store};

/// A server to test against, and the schemas made on it, dropped when this is.
#[derive(Debug)]
pub struct TestServer {
    /// Its URL.
    pub url: String,
    schemas: Vec<String>,
}

impl TestServer {
    /// The test server, or `None` (with a note on standard error) when there is none.
    pub fn get() -> Option<TestServer> {
        match std::env::var("ORO_MEM_TEST_PG_URL") {
            Ok(url) if !url.is_empty() => Some(TestServer {
                url,
                schemas: Vec::new(),
            }),
            _ if std::env::var_os("ORO_MEM_TEST_PG_REQUIRED").is_some() => {
                panic!("ORO_MEM_TEST_PG_REQUIRED is set but ORO_MEM_TEST_PG_URL is not")
            }
            _ => {
                eprintln!(
                    "no ORO_MEM_TEST_PG_URL: PostgreSQL tests skipped (see scripts/postgres)"
                );
                None
            }
        }
    }

    /// The URL of a new, empty schema (the server's URL with its `search_path`).
    pub fn fresh_url(&mut self) -> String {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "oro_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        self.schemas.push(name.clone());
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}options=-csearch_path%3D{name}", self.url)
    }

    /// The location of a new, empty schema.
    pub fn fresh(&mut self) -> Location {
        Location::parse(&self.fresh_url()).expect("test URL")
    }

    /// A new, empty store.
    pub fn store(&mut self) -> Store {
        Store::open(&self.fresh()).expect("open a store on the test server")
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if self.schemas.is_empty() {
            return;
        }
        if let Ok(server) = Location::parse(&self.url) {
            for s in &self.schemas {
                let _ = server.drop_schema(s);
            }
        }
    }
}
