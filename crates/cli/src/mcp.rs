//! `oro-mem mcp`: a Model Context Protocol server over stdio (rmcp), with four tools:
//! `memory_search`, `memory_remember`, `memory_get` and `memory_forget`.
//!
//! Arguments that are well-formed JSON but wrong (an unknown type, empty content, a missing
//! id) come back as tool errors (`isError: true`) with a message saying what was wrong;
//! arguments of the wrong shape are rejected by rmcp as invalid parameters. Neither ends the
//! server. Results are compact JSON text: every token of a tool result costs the agent.
//!
//! The transport is this crate's own ([`stdio`]): rmcp's drops lines it cannot parse without
//! an answer, and a client waits forever on that request.

use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{Context, Result};
use oro_mem_core::config::RecallRequest;
use oro_mem_core::memory::normalize_tags;
use oro_mem_core::{Filter, Memory, MemoryId, Near, NewMemory, Query, Source, Timestamp};
use oro_mem_engine::{Answer, Recalled};
use oro_mem_store_sqlite::{ListOrder, WriteOutcome};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData, ServerHandler, ServiceExt};
use serde::Deserialize;

use crate::Ctx;

mod stdio;

/// The store, configuration and engine the tools share.
type State = Ctx;

/// What the tools share: the [`State`] once there is a store, and how to open it. While there
/// is none (no `oro-mem init` yet), every call looks again, and fails saying how to make one.
struct Shared {
    state: Option<State>,
    open: Box<dyn Fn() -> Result<State> + Send>,
}

impl Shared {
    /// The state, opened now if it was not.
    fn state(&mut self) -> Result<&mut State> {
        if self.state.is_none() {
            let state = (self.open)()?;
            errln!(
                "oro-mem: MCP server on stdio for {}",
                state.store.location()
            );
            self.state = Some(state);
        }
        Ok(self.state.as_mut().expect("opened above"))
    }
}

/// The MCP server.
#[derive(Clone)]
pub struct MemoryServer {
    state: Arc<Mutex<Shared>>,
    #[allow(dead_code)] // read by the code `tool_handler` generates
    tool_router: ToolRouter<MemoryServer>,
}

impl std::fmt::Debug for MemoryServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryServer").finish_non_exhaustive()
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct SearchArgs {
    /// What the task is about, in plain words; "*" with a session replays that session's
    /// memories in the order they were written.
    query: String,
    /// Most results, 1 to 100 (default: recall.max_results, 3).
    limit: Option<usize>,
    /// fts, hybrid or vector (default: configured).
    mode: Option<String>,
    /// Only this type: lesson, decision, gotcha, pattern, preference, fact.
    #[serde(rename = "type")]
    memory_type: Option<String>,
    /// Only memories with one of these tags.
    tags: Option<Vec<String>>,
    /// Only this namespace.
    namespace: Option<String>,
    /// Only this session's memories.
    session: Option<String>,
    /// Only memories at least this trusted, 0..1 (default: configured, 0.3).
    min_confidence: Option<f64>,
    /// Also older versions of facts that changed (superseded memories); default false.
    include_superseded: Option<bool>,
    /// Let older memories count less (time decay; default: configured).
    decay: Option<bool>,
    /// Token budget for the contents (default 500).
    budget: Option<usize>,
    /// Drop results whose estimated probability of relevance is below this, 0..1; 0 keeps
    /// all (default: recall.min_relevance, 0.02).
    min_relevance: Option<f64>,
    /// Also rank by distance from a point: the memories' coordinates are the numeric array
    /// at this metadata path (spatial.object_position).
    near_field: Option<String>,
    /// The point's coordinates, with near_field.
    near: Option<Vec<f64>>,
    /// With near: leave out memories farther than this (those without coordinates stay).
    max_distance: Option<f64>,
    /// Include each ranker's rank and score, the relevance estimate's features, and what kept
    /// a result below the relevance bar (named, similar).
    explain: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct RememberArgs {
    /// The memory: one self-contained fact or lesson.
    content: String,
    /// lesson (default), decision, gotcha, pattern, preference or fact.
    #[serde(rename = "type")]
    memory_type: Option<String>,
    /// Labels.
    tags: Option<Vec<String>>,
    /// Namespace (default "default").
    namespace: Option<String>,
    /// The session (conversation, run) it was learned in; memories of one session lend
    /// each other context in search.
    session: Option<String>,
    /// 0..1 (default 0.8).
    confidence: Option<f64>,
    /// A short summary (one line), searched beside the content.
    summary: Option<String>,
    /// The files it is about (paths): a task that names one finds it.
    files: Option<Vec<String>>,
    /// The entities it is about (symbols, services, tools).
    entities: Option<Vec<String>>,
    /// The ids of memories this one is the newer version of (a changed fact): they are kept,
    /// superseded by it, and no longer found by search.
    supersedes: Option<Vec<MemoryId>>,
    /// false: store it beside an older memory it would update (the same statement with
    /// values changed) instead of superseding that one. Default true.
    supersede: Option<bool>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct IdArgs {
    /// The memory's id.
    id: MemoryId,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ForgetArgs {
    /// The memory's id.
    id: MemoryId,
    /// Keep it, archived, instead of deleting it.
    archive: Option<bool>,
}

fn ok(value: serde_json::Value) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(
        value.to_string(),
    )]))
}

fn tool_error(message: impl std::fmt::Display) -> Result<CallToolResult, ErrorData> {
    Ok(CallToolResult::error(vec![ContentBlock::text(
        message.to_string(),
    )]))
}

impl MemoryServer {
    fn new(shared: Shared) -> MemoryServer {
        MemoryServer {
            state: Arc::new(Mutex::new(shared)),
            tool_router: MemoryServer::tool_router(),
        }
    }

    /// Runs `f` on the state, on a thread of its own: a store may block (the PostgreSQL
    /// client drives a runtime of its own, which cannot run inside this one) and a model may
    /// take seconds. A poisoned lock (a panic in an earlier call) is taken over, since every
    /// write is its own transaction and leaves nothing half-done; a panic in `f` is this
    /// call's error, not the server's end.
    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut State) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        let state = Arc::clone(&self.state);
        let call = tokio::task::spawn_blocking(move || {
            let mut guard = state.lock().unwrap_or_else(PoisonError::into_inner);
            f(guard.state()?)
        });
        match call.await {
            Ok(done) => done,
            Err(e) => match e.try_into_panic() {
                Ok(panic) => Err(anyhow::anyhow!("internal error: {}", panic_message(&panic))),
                Err(e) => Err(anyhow::anyhow!("internal error: {e}")),
            },
        }
    }

    async fn search_impl(&self, a: SearchArgs) -> anyhow::Result<serde_json::Value> {
        self.with(move |s| {
            let config = RecallRequest {
                mode: a.mode.as_deref().map(str::parse).transpose()?,
                limit: a.limit,
                budget: a.budget,
                min_relevance: a.min_relevance,
                decay: a.decay,
                ..RecallRequest::default()
            }
            .apply(s.engine.config())?;
            let filter = a.filter()?;
            if a.query.trim() == "*" {
                // A session replayed: its memories in the order they were written.
                anyhow::ensure!(
                    filter.session.is_some(),
                    "query \"*\" replays a session in the order it was written: give session"
                );
                let limit = a.limit.unwrap_or(oro_mem_core::config::MAX_RESULTS);
                let episode = s.store.list(&filter, ListOrder::Oldest, limit, 0)?;
                return Ok(replay_json(&episode));
            }
            let near = a.near()?;
            anyhow::ensure!(
                !oro_mem_text::is_blank(&a.query) || near.is_some(),
                "query is empty: give the words to search for"
            );
            let mut query = Query::new(&a.query, &filter).now(Timestamp::now());
            if let Some(near) = &near {
                query = query.near(near);
            }
            // A read-only store is searched without counting the access.
            let touch = !s.store.is_read_only();
            let answer = s
                .engine
                .reconfigured(config)?
                .recall(&mut s.store, &query, touch)?;
            Ok(answer_json(&answer, a.explain.unwrap_or(false)))
        })
        .await
    }

    async fn remember_impl(&self, a: RememberArgs) -> anyhow::Result<serde_json::Value> {
        let memory_type = a.memory_type.as_deref().unwrap_or("lesson").parse()?;
        let mut m = NewMemory::new(a.content, memory_type)
            .tags(a.tags.unwrap_or_default())
            .source(Source::SelfReport);
        if let Some(ns) = a.namespace {
            m = m.namespace(ns);
        }
        if let Some(c) = a.confidence {
            m = m.confidence(c);
        }
        m.session = a.session;
        m.summary = a.summary;
        m.files = a.files.unwrap_or_default();
        m.entities = a.entities.unwrap_or_default();
        m.supersedes = a.supersedes.unwrap_or_default();
        let supersede = a.supersede.unwrap_or(true);
        self.with(move |s| {
            let mut dedup = s.engine.config().dedup.clone();
            dedup.updates &= supersede;
            let done = s.remember(vec![(m, None)], &dedup, &mut std::io::stderr())?;
            // What the memory was taken for is named with its text, so that an agent can
            // tell a true duplicate from a fact it meant to change (and then pass
            // `supersedes`) without a `memory_get`.
            let content = |id: MemoryId| -> anyhow::Result<String> { Ok(s.store.get(id)?.content) };
            let mut out = match &done.outcomes[0] {
                WriteOutcome::Inserted { id } => serde_json::json!({ "stored": id }),
                WriteOutcome::Updated { id, supersedes } => {
                    let superseded = supersedes
                        .iter()
                        .map(|&old| Ok(serde_json::json!({ "id": old, "content": content(old)? })))
                        .collect::<anyhow::Result<Vec<_>>>()?;
                    serde_json::json!({
                        "stored": id,
                        "supersedes": supersedes,
                        "superseded": superseded,
                    })
                }
                WriteOutcome::Merged {
                    into, similarity, ..
                } => serde_json::json!({
                    "merged_into": into,
                    "existing": content(*into)?,
                    "similarity": similarity,
                }),
                WriteOutcome::Skipped {
                    duplicate_of,
                    similarity,
                } => serde_json::json!({
                    "duplicate_of": duplicate_of,
                    "existing": content(*duplicate_of)?,
                    "similarity": similarity,
                }),
            };
            if !done.warnings.is_empty() {
                out["warnings"] = serde_json::json!(done.warnings);
            }
            Ok(out)
        })
        .await
    }
}

#[tool_router]
impl MemoryServer {
    #[tool(
        description = "Find the stored memories (lessons, gotchas, decisions, patterns, \
                       preferences, facts) most relevant to a task. Returns id, type, content, \
                       score."
    )]
    async fn memory_search(
        &self,
        Parameters(a): Parameters<SearchArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        match self.search_impl(a).await {
            Ok(v) => ok(v),
            Err(e) => tool_error(format!("{e:#}")),
        }
    }

    #[tool(
        description = "Store a memory worth keeping for future tasks. A duplicate is not stored \
                       twice (its existing text is returned); a changed fact supersedes its older \
                       version."
    )]
    async fn memory_remember(
        &self,
        Parameters(a): Parameters<RememberArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        match self.remember_impl(a).await {
            Ok(v) => ok(v),
            Err(e) => tool_error(format!("{e:#}")),
        }
    }

    #[tool(description = "Get one memory by id, with its metadata.")]
    async fn memory_get(
        &self,
        Parameters(a): Parameters<IdArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        // An agent reading a memory in full uses it: counted, unless the store is read-only.
        let got = self
            .with(move |s| s.read_in_full(a.id, true, &mut crate::Diagnostics(std::io::stderr())))
            .await;
        match got {
            Ok(m) => ok(serde_json::json!(m)),
            Err(e) => tool_error(format!("{e:#}")),
        }
    }

    #[tool(description = "Delete a memory by id (or archive it with archive=true).")]
    async fn memory_forget(
        &self,
        Parameters(a): Parameters<ForgetArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        let archive = a.archive.unwrap_or(false);
        let done = self
            .with(move |s| {
                let unembedded = if archive {
                    s.store.set_status(a.id, oro_mem_core::Status::Archived)?
                } else {
                    s.store.forget(a.id)?
                };
                Ok(s.engine.reembed(&mut s.store, &unembedded)?)
            })
            .await;
        match done {
            Ok(r) => {
                let mut out = if archive {
                    serde_json::json!({ "archived": a.id })
                } else {
                    serde_json::json!({ "forgotten": a.id })
                };
                out["reembedded"] = r.done.into();
                if !r.warnings.is_empty() {
                    out["warnings"] = serde_json::json!(r.warnings);
                }
                ok(out)
            }
            Err(e) => tool_error(format!("{e:#}")),
        }
    }
}

/// What a panic said, when it said it with a string.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

#[tool_handler]
impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("oro-mem", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Long-term memory. Call memory_search with the task before starting; call \
                 memory_remember with anything learned that a later task would need.",
            )
    }
}

/// Serves MCP on standard input and output until the client disconnects, on the store `open`
/// opens. Without one (no `oro-mem init` yet) it still serves, says so on standard error,
/// and each tool call looks for the store again and fails saying how to make it.
pub fn serve(open: impl Fn() -> Result<Ctx> + Send + 'static) -> Result<()> {
    let open = move || {
        let mut ctx = open()?;
        ctx.store.stay_warm();
        // Load the model once, before the first search.
        if ctx.engine.config().mode.uses_vectors() {
            if let Err(e) = ctx.engine.embedder() {
                errln!("oro-mem: {e}; answering FTS-only and storing without embeddings");
            }
        }
        Ok(ctx)
    };
    let mut shared = Shared {
        state: None,
        open: Box::new(open),
    };
    if let Err(e) = shared.state() {
        errln!("oro-mem: MCP server on stdio without a store: {e:#}; each call says so until there is one");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let server = MemoryServer::new(shared);
    // The store is dropped here, outside the runtime: closing a PostgreSQL client blocks.
    let state = Arc::clone(&server.state);
    let served = runtime.block_on(async {
        let service = server
            .serve(stdio::Stdio::new())
            .await
            .context("MCP initialization failed")?;
        service.waiting().await.context("MCP server stopped")?;
        Ok(())
    });
    drop(runtime);
    drop(state);
    served
}

impl SearchArgs {
    /// The filter of a search: as the command line reads its filters, "" and blank tags
    /// restrict nothing.
    fn filter(&self) -> anyhow::Result<Filter> {
        Ok(Filter {
            types: self
                .memory_type
                .as_deref()
                .map(str::parse)
                .transpose()?
                .into_iter()
                .collect(),
            tags_any: normalize_tags(self.tags.as_deref().unwrap_or_default()),
            namespace: self.namespace.clone(),
            session: self.session.clone(),
            min_confidence: self.min_confidence,
            include_superseded: self.include_superseded.unwrap_or(false),
            ..Filter::default()
        })
    }

    /// The point of a search, if it names one.
    fn near(&self) -> anyhow::Result<Option<Near>> {
        match (&self.near_field, &self.near) {
            (Some(path), Some(point)) => Ok(Some(Near::new(
                path.clone(),
                point.clone(),
                self.max_distance,
            )?)),
            (None, None) if self.max_distance.is_none() => Ok(None),
            _ => anyhow::bail!(
                "near_field and near go together (a metadata path and a point's \
                 coordinates), and max_distance needs them"
            ),
        }
    }
}

/// A replayed session's memories, in the order they were written.
fn replay_json(episode: &[Memory]) -> serde_json::Value {
    let results: Vec<serde_json::Value> = episode
        .iter()
        .map(|m| {
            serde_json::json!({
                "id": m.id, "type": m.memory_type, "content": m.content,
                "created_at": m.created_at,
            })
        })
        .collect();
    serde_json::json!({ "mode": "replay", "results": results })
}

/// A search's answer: its results (with `explain`, each list's part, the features and what
/// kept one below the relevance bar), the mode that answered, warnings, and why nothing was
/// returned.
fn answer_json(answer: &Answer, explain: bool) -> serde_json::Value {
    let results: Vec<serde_json::Value> = answer
        .recall
        .results
        .iter()
        .map(|r| result_json(r, explain))
        .collect();
    let mut out = serde_json::json!({ "mode": answer.answered_by, "results": results });
    if !answer.recall.warnings.is_empty() {
        out["warnings"] = serde_json::json!(answer.recall.warnings);
    }
    if let Some(why) = &answer.recall.abstained {
        out["abstained"] = serde_json::json!(why);
    }
    if let (true, Some(a)) = (explain, answer.recall.answerable) {
        out["answerable"] = ((a * 1000.0).round() / 1000.0).into();
    }
    out
}

/// One result of a search.
fn result_json(r: &Recalled, explain: bool) -> serde_json::Value {
    let mut v = serde_json::json!({
        "id": r.memory.id,
        "type": r.memory.memory_type,
        "content": r.memory.content,
        "score": (r.score * 1000.0).round() / 1000.0,
    });
    if let Some(p) = r.probability {
        v["relevance"] = ((p * 1000.0).round() / 1000.0).into();
    }
    if !r.memory.tags.is_empty() {
        v["tags"] = serde_json::json!(r.memory.tags);
    }
    // Asked for with `include_superseded`: an older state of a fact, said to be one.
    if r.memory.status != oro_mem_core::Status::Active {
        v["status"] = r.memory.status.as_str().into();
        if let Some(by) = r.memory.superseded_by {
            v["superseded_by"] = by.into();
        }
        if let Some(into) = r.memory.merged_into {
            v["merged_into"] = into.into();
        }
    }
    if explain {
        v["raw_score"] = r.raw_score.into();
        v["lists"] = serde_json::json!(r.lists);
        if !r.boosts.is_empty() {
            v["boosts"] = serde_json::json!(r.boosts);
        }
        if !r.features.is_empty() {
            v["features"] = serde_json::json!(r.features);
        }
        // What kept it below the relevance bar, as `recall --json` says.
        if let Some(n) = &r.named {
            v["named"] = n.as_str().into();
        }
        if let Some(c) = r.similar {
            v["similar"] = c.into();
        }
        if let Some(c) = r.similar_next {
            v["similar_next"] = c.into();
        }
    }
    v
}
