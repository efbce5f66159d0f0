//! `symgame serve`: a player for the GGP communication protocol, over HTTP.
//!
//! The HTTP is here (tiny_http; each message answered on a thread of its own, so that a client
//! that stalls while sending holds only its own thread); what each message means is
//! `symgame_player::Player`'s. Replies are `text/acknowledge`, as GGP game servers send and
//! expect. A message the player cannot answer gets a 4xx status with `error: WHY` as its body,
//! and serving goes on. Ctrl-C (or SIGTERM) ends the server (exit code 0).

use crate::failure::Failure;
use crate::signals::cancel_flag;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use symgame_player::sexpr::Sexpr;
use symgame_player::{Player, PlayerConfig};
use tiny_http::{Header, Method, Request, Response, Server};

/// The largest message body read: GGP rules of the largest games are a few hundred kB.
pub const MAX_BODY: usize = 1 << 20;

/// The most messages answered at once (each on its own thread); more get "busy" (503).
const MAX_IN_FLIGHT: usize = 256;

#[derive(clap::Args)]
pub struct Args {
    /// The TCP port (0: any free port; the first line printed names it).
    #[arg(long, default_value = "9147")]
    port: u16,
    /// The address to listen on: 127.0.0.1 (this machine only) or, for a game server on
    /// another machine, 0.0.0.0 (every interface).
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// A directory of databases (from `symgame export`), found by the game's fingerprint; a
    /// game solved during a start clock is kept there too.
    #[arg(long, value_name = "DIR")]
    db_dir: Option<PathBuf>,
    /// Matches at once (`info` answers busy at this many).
    #[arg(long, default_value = "16", value_parser = clap::value_parser!(u16).range(1..=1024))]
    max_matches: u16,
}

pub fn run(a: Args) -> Result<(), Failure> {
    if let Some(dir) = &a.db_dir {
        if !dir.is_dir() {
            return Err(Failure::input(format!(
                "--db-dir {}: not a directory",
                dir.display()
            )));
        }
    }
    crate::tempfiles::register_spill();
    let server = Server::http((a.bind, a.port))
        .map_err(|e| Failure::input(format!("cannot listen on {}:{}: {e}", a.bind, a.port)))?;
    let addr = server
        .server_addr()
        .to_ip()
        .map_or_else(|| format!("{}:{}", a.bind, a.port), |s| s.to_string());
    println!("symgame GGP player on http://{addr}/");
    let _ = std::io::stdout().flush();
    let player = Arc::new(Player::new(PlayerConfig {
        db_dir: a.db_dir.clone(),
        max_matches: usize::from(a.max_matches),
    }));
    let server = Arc::new(server);
    let served = Arc::new(AtomicU64::new(0));
    let cancel = cancel_flag();
    // One thread takes the requests; each is answered on a thread of its own, so that a client
    // that stalls while sending its message (tiny_http has no read timeout) holds only its own
    // thread, never the others'. At most MAX_IN_FLIGHT at once: beyond, "busy" (503).
    let in_flight = Arc::new(AtomicUsize::new(0));
    {
        let (server, served, cancel) = (server.clone(), served.clone(), cancel.clone());
        std::thread::spawn(move || {
            while !cancel.load(Ordering::Relaxed) {
                match server.recv_timeout(Duration::from_millis(200)) {
                    Ok(Some(request)) => {
                        served.fetch_add(1, Ordering::Relaxed);
                        if in_flight.fetch_add(1, Ordering::SeqCst) >= MAX_IN_FLIGHT {
                            in_flight.fetch_sub(1, Ordering::SeqCst);
                            respond(
                                request,
                                503,
                                format!("error: busy ({MAX_IN_FLIGHT} messages in progress)"),
                            );
                            continue;
                        }
                        let (player, in_flight) = (player.clone(), in_flight.clone());
                        std::thread::spawn(move || {
                            serve(&player, request);
                            in_flight.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Ok(None) => {}
                    Err(e) => eprintln!("symgame serve: {e}"),
                }
            }
        });
    }
    // Until Ctrl-C or SIGTERM; a worker busy with a start clock is not waited for.
    while !cancel.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
    }
    // Tables still being solved are abandoned: their temporary files go.
    crate::tempfiles::remove_own();
    remove_own_temporaries(&std::env::temp_dir());
    remove_own_tables(&std::env::temp_dir());
    if let Some(dir) = &a.db_dir {
        remove_own_temporaries(dir);
    }
    eprintln!(
        "symgame serve: interrupted after {} messages; stopped",
        served.load(Ordering::Relaxed)
    );
    Ok(())
}

/// Removes this process's hidden working directories and temporary files in `dir`
/// (`.NAME.solve-PID-*` and `.NAME.tmp-PID-*`, from solving tables that were not finished).
fn remove_own_temporaries(dir: &std::path::Path) {
    let pid = std::process::id();
    let marks = [format!(".solve-{pid}-"), format!(".tmp-{pid}-")];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && marks.iter().any(|m| name.contains(m.as_str())) {
            let p = e.path();
            let _ = std::fs::remove_dir_all(&p).or_else(|_| std::fs::remove_file(&p));
        }
    }
}

/// Removes this process's tables in `dir` that were written only to be opened
/// (`symgame-player-PID-N.db`, removed once open; one is left when the server stops between).
fn remove_own_tables(dir: &std::path::Path) {
    let mark = format!("symgame-player-{}-", std::process::id());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(&mark) && name.ends_with(".db") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid ASCII header")
}

fn respond(request: Request, status: u16, body: String) {
    let response = Response::from_string(body)
        .with_status_code(status)
        .with_header(header("Content-Type", "text/acknowledge"))
        .with_header(header("Access-Control-Allow-Origin", "*"))
        .with_header(header("Access-Control-Allow-Methods", "POST, GET, OPTIONS"))
        .with_header(header("Access-Control-Allow-Headers", "Content-Type"))
        .with_header(header("Access-Control-Max-Age", "86400"));
    // A client that went away is no reason to stop serving.
    let _ = request.respond(response);
}

/// The reply to one request.
fn serve(player: &Player, mut request: Request) {
    let received = Instant::now();
    match request.method() {
        Method::Post => {}
        Method::Options => return respond(request, 200, String::new()),
        _ => {
            return respond(
                request,
                405,
                "error: a GGP player answers POST requests with KIF messages".to_string(),
            )
        }
    }
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return respond(request, 413, too_large());
    }
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut body);
    if let Err(e) = read {
        return respond(request, 400, format!("error: cannot read the message: {e}"));
    }
    if body.len() > MAX_BODY {
        return respond(request, 413, too_large());
    }
    let Ok(text) = String::from_utf8(body) else {
        return respond(request, 400, "error: the message is not UTF-8".to_string());
    };
    let summary: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let summary: String = summary.chars().take(60).collect();
    match player.handle(&text, received) {
        Ok(reply) => {
            eprintln!("{summary} -> {reply}{}", how_it_plays(player, &text));
            respond(request, 200, reply);
        }
        Err(e) => {
            eprintln!("{summary} -> error {}: {}", e.status, e.message);
            respond(request, e.status, format!("error: {}", e.message));
        }
    }
}

fn too_large() -> String {
    format!("error: the message is over {MAX_BODY} bytes")
}

/// For a `start`: "; match ID plays from a table" (or by search, and why), for the log.
fn how_it_plays(player: &Player, message: &str) -> String {
    let Ok(Sexpr::List(items, _)) = symgame_player::sexpr::parse(message) else {
        return String::new();
    };
    match (items.first().and_then(Sexpr::atom).as_deref(), items.get(1)) {
        (Some("start"), Some(Sexpr::Atom(id, _))) => player
            .match_info(id)
            .map_or(String::new(), |how| format!("; match {id}: {how}")),
        _ => String::new(),
    }
}
