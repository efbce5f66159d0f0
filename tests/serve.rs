//! `symgame serve`: whole GGP matches over real HTTP on the loopback interface. The test is the
//! game server: it starts `symgame serve` processes on free ports, sends `start`, `play` and
//! `stop`, keeps the state of each match with the explicit reasoner, checks every move the
//! players send is legal, and scores the terminal state.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use symgame_explicit::Reasoner;
use symgame_ground::{GroundGame, GroundTerm};

/// A `symgame serve` process on a free port; killed when dropped.
struct Server {
    child: Child,
    port: u16,
    /// Where its log (standard error) goes.
    log: PathBuf,
}

impl Server {
    fn start(db_dir: Option<&Path>) -> Server {
        Server::start_with(db_dir, &[])
    }

    /// [`Server::start`] with further flags.
    fn start_with(db_dir: Option<&Path>, flags: &[&str]) -> Server {
        static SERVERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = SERVERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let log = symgame_testkit::scratch_dir!("serve-tests", format!("log-{n}")).join("log");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_symgame"));
        cmd.args(["serve", "--port", "0"]);
        if let Some(dir) = db_dir {
            cmd.arg("--db-dir").arg(dir);
        }
        cmd.args(flags);
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("creates the log"))
            .spawn()
            .expect("symgame serve starts");
        // The first line names the address: "symgame GGP player on http://127.0.0.1:PORT/".
        let mut line = Vec::new();
        let mut out = child.stdout.take().expect("piped stdout");
        let mut byte = [0u8; 1];
        while out.read(&mut byte).expect("reads the first line") == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let line = String::from_utf8_lossy(&line).into_owned();
        let port = line
            .rsplit(':')
            .next()
            .and_then(|p| p.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, port, log }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first: the server removes its temporary files; SIGKILL if it lingers.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP reply: status, content type, body.
struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

/// Sends `body` by HTTP POST (or `method`) to the player on `port`.
fn request(port: u16, method: &str, body: &[u8]) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let head = format!(
        "{method} / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: text/acknowledge\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("writes the head");
    // The player may refuse a body too large before reading it all.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {raw:?}"));
    let content_type = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_default();
    Reply {
        status,
        content_type,
        body: body.trim().to_string(),
    }
}

fn post(port: u16, body: &str) -> Reply {
    request(port, "POST", body.as_bytes())
}

/// A player of a match: a `symgame serve` on a port, or the test's own seeded random player.
#[derive(Clone, Copy)]
enum Seat {
    Remote(u16),
    Random(u64),
}

/// SplitMix64.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A game as the test's game server knows it.
struct Referee {
    rules: String,
    game: GroundGame,
    reasoner: Reasoner,
    /// The start clock, in seconds.
    start_clock: u32,
}

impl Referee {
    fn new(name: &str) -> Referee {
        let path: PathBuf = symgame_testkit::gdl_path(name);
        let rules = std::fs::read_to_string(&path).expect("reads the game");
        let game = symgame_testkit::load(&path);
        let reasoner = Reasoner::new(&game);
        Referee {
            rules,
            game,
            reasoner,
            start_clock: 60,
        }
    }

    fn start_message(&self, id: &str, role: usize) -> String {
        // The rules go inside a list; a newline ends a trailing comment before the `)`.
        format!(
            "(start {id} {} ({}\n) {} 10)",
            self.game.roles[role].name, self.rules, self.start_clock
        )
    }

    /// Plays match `id` with `seats` (one per role, in role order) to its end: the rewards.
    fn play(&self, id: &str, seats: &[Seat]) -> Vec<u8> {
        let r = &self.reasoner;
        for (p, seat) in seats.iter().enumerate() {
            if let Seat::Remote(port) = seat {
                let reply = post(*port, &self.start_message(id, p));
                assert_eq!(
                    (reply.status, reply.body.as_str()),
                    (200, "ready"),
                    "start {id}"
                );
                assert_eq!(reply.content_type, "text/acknowledge");
            }
        }
        let mut randoms: Vec<u64> = seats
            .iter()
            .map(|s| match s {
                Seat::Random(seed) => *seed,
                Seat::Remote(_) => 0,
            })
            .collect();
        let mut state = r.initial_state();
        let mut last = "nil".to_string();
        while !r.is_terminal(&state) {
            let mut joint = Vec::new();
            for (p, seat) in seats.iter().enumerate() {
                let legal = r.legal_moves(&state, p);
                let m = match seat {
                    Seat::Remote(port) => {
                        let reply = post(*port, &format!("(play {id} {last})"));
                        assert_eq!(reply.status, 200, "play {id}: {}", reply.body);
                        let term = GroundTerm::parse(&reply.body).expect("a move term");
                        self.game
                            .find_move(p, &term)
                            .filter(|m| legal.contains(m))
                            .unwrap_or_else(|| panic!("{id}: illegal move {term}"))
                    }
                    Seat::Random(_) => {
                        legal[(next_random(&mut randoms[p]) % legal.len() as u64) as usize]
                    }
                };
                joint.push(m);
            }
            let texts: Vec<String> = joint
                .iter()
                .enumerate()
                .map(|(p, &m)| self.game.roles[p].moves[m].to_string())
                .collect();
            last = format!("({})", texts.join(" "));
            state = r.next_state(&state, &joint);
        }
        for seat in seats {
            if let Seat::Remote(port) = seat {
                let reply = post(*port, &format!("(stop {id} {last})"));
                assert_eq!(
                    (reply.status, reply.body.as_str()),
                    (200, "done"),
                    "stop {id}"
                );
            }
        }
        (0..r.num_roles())
            .map(|p| r.goal(&state, p).unwrap_or(0))
            .collect()
    }
}

#[test]
fn perfect_players_draw_tictactoe_and_connect_four_4x4_over_http() {
    // Player b has a database of Connect Four 4x4 made by `symgame export`: it finds it by
    // the game's fingerprint (and keeps the tic-tac-toe table it solves beside it).
    let dir = symgame_testkit::scratch_dir!("serve-tests", "perfect");
    let db = dir.join("c4.db");
    let (code, _, err) = crate::symgame(&[
        "export",
        "gdl/connect4_4x4.kif",
        "--out",
        db.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let a = Server::start(None);
    let b = Server::start(Some(&dir));
    // Both games are draws (gdl/*.expect: value 50 50).
    for game in ["tictactoe", "connect4_4x4"] {
        let referee = Referee::new(game);
        for (i, seats) in [
            [Seat::Remote(a.port), Seat::Remote(b.port)],
            [Seat::Remote(b.port), Seat::Remote(a.port)],
        ]
        .iter()
        .enumerate()
        {
            let rewards = referee.play(&format!("{game}-{i}"), seats);
            assert_eq!(rewards, vec![50, 50], "{game}, match {i}");
        }
    }
    let log = std::fs::read_to_string(&b.log).unwrap();
    assert!(
        log.contains("-> ready; match connect4_4x4-0: table"),
        "{log}"
    );
    let mut kept: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    // The exported database, and one solved file: tic-tac-toe's (Connect Four's was found).
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0], "c4.db");
}

/// 100 seeded matches of `game` between the player on `port` (on either side) and a random
/// player, four at once; the player never loses.
fn against_random(port: u16, game: &'static str) {
    std::thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || {
                let referee = Referee::new(game);
                for k in 0..25u64 {
                    let seed = 1000 * t + k;
                    let us = (seed % 2) as usize;
                    let mut seats = [Seat::Random(seed), Seat::Random(seed)];
                    seats[us] = Seat::Remote(port);
                    let rewards = referee.play(&format!("{game}-random-{seed}"), &seats);
                    assert!(
                        rewards[us] >= rewards[1 - us],
                        "{game}, seed {seed}: the perfect player lost {rewards:?}"
                    );
                }
            });
        }
    });
}

#[test]
fn perfect_player_never_loses_to_a_random_player() {
    let dir = symgame_testkit::scratch_dir!("serve-tests", "random");
    let server = Server::start(Some(&dir));
    // The first start of a game solves it and keeps its database in --db-dir, the others
    // find it there.
    against_random(server.port, "tictactoe");
    let kept: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(kept.len(), 1, "one database kept in --db-dir: {kept:?}");
    against_random(server.port, "connect4_4x4");
}

#[test]
fn without_time_to_solve_the_player_searches_and_still_never_loses() {
    // A start clock of 0: 50 ms to prepare (maybe not even to ground before `ready`); the moves
    // come from alpha-beta within the play clock, which solves tic-tac-toe from any position,
    // until a table made in the background is there.
    let server = Server::start(None);
    let mut referee = Referee::new("tictactoe");
    referee.start_clock = 0;
    for seed in 0..6u64 {
        let us = (seed % 2) as usize;
        let mut seats = [Seat::Random(seed), Seat::Random(seed)];
        seats[us] = Seat::Remote(server.port);
        let rewards = referee.play(&format!("search-{seed}"), &seats);
        assert!(
            rewards[us] >= rewards[1 - us],
            "seed {seed}: lost {rewards:?}"
        );
    }
    let log = std::fs::read_to_string(&server.log).unwrap();
    // Ready before the grounding ("preparing"), after it ("search: ..."), or, as tic-tac-toe
    // solves in milliseconds, even with its table made within the 50 ms the player gives
    // itself: whichever, it never loses.
    assert!(log.contains("-> ready; match search-0: "), "{log}");
    let other = Server::start(None);
    let rewards = referee.play(
        "search-both",
        &[Seat::Remote(server.port), Seat::Remote(other.port)],
    );
    assert_eq!(rewards, vec![50, 50]);
}

#[test]
fn a_preview_solves_the_game_for_the_match_to_come() {
    let dir = symgame_testkit::scratch_dir!("serve-tests", "preview");
    let server = Server::start(Some(&dir));
    let referee = Referee::new("connect4_4x4");
    let rules = referee.start_message("x", 0);
    let rules = &rules[rules.find(" (").unwrap() + 1..rules.rfind(')').unwrap()];
    let rules = &rules[..rules.rfind(" 60 10").unwrap()];
    let reply = post(server.port, &format!("(preview {rules} 30)"));
    assert_eq!((reply.status, reply.body.as_str()), (200, "ready"));
    // The table appears in --db-dir under its final name (the writer's temporary files and
    // directories start with a dot).
    let tables = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                let name = name.to_string_lossy();
                !name.starts_with('.') && name.ends_with(".db")
            })
            .count()
    };
    let mut waited = 0;
    while tables() == 0 {
        assert!(waited < 600, "no table after a minute");
        std::thread::sleep(std::time::Duration::from_millis(100));
        waited += 1;
    }
    let rewards = referee.play(
        "after-preview",
        &[Seat::Remote(server.port), Seat::Random(3)],
    );
    assert!(rewards[0] >= rewards[1], "{rewards:?}");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(
        log.contains("-> ready; match after-preview: table"),
        "{log}"
    );
    assert_eq!(tables(), 1);
    let bad = post(server.port, "(preview ((role x) (<= (foo ?y))) 30)");
    assert_eq!(bad.status, 400, "{}", bad.body);
}

#[test]
fn malformed_and_out_of_order_messages_get_errors_and_serving_goes_on() {
    let server = Server::start(None);
    let port = server.port;
    let referee = Referee::new("tictactoe");
    let huge = format!("(info {})", "x".repeat(1 << 20));
    let cases: Vec<(&str, Reply)> = vec![
        ("garbage", post(port, "garbage (((")),
        ("unbalanced", post(port, "(play m1")),
        ("empty", post(port, "")),
        ("unknown kind", post(port, "(dance m1)")),
        ("play unknown match", post(port, "(play nosuch nil)")),
        ("stop unknown match", post(port, "(stop nosuch nil)")),
        ("abort unknown match", post(port, "(abort nosuch)")),
        ("over 1 MB", request(port, "POST", huge.as_bytes())),
        ("not UTF-8", request(port, "POST", b"(info \xff)")),
        ("GET", request(port, "GET", b"")),
        (
            "invalid GDL",
            post(port, "(start bad xplayer ((role x) (<= (foo ?y))) 10 5)"),
        ),
        (
            "no such role",
            post(
                port,
                &referee
                    .start_message("norole", 0)
                    .replace("(start norole xplayer", "(start norole zplayer"),
            ),
        ),
        (
            "bad clock",
            post(port, "(start m2 xplayer ((role xplayer)) soon 5)"),
        ),
        ("wrong arity", post(port, "(play)")),
    ];
    for (what, reply) in &cases {
        assert!(
            (400..500).contains(&reply.status),
            "{what}: status {} {:?}",
            reply.status,
            reply.body
        );
        assert!(
            reply.body.starts_with("error: "),
            "{what}: {:?}",
            reply.body
        );
    }
    // Out of order within a match: a second start, moves before the first play, an illegal
    // move, `nil` once the match has begun, play after stop.
    let ok = post(port, &referee.start_message("m", 0));
    assert_eq!(ok.body, "ready");
    assert_eq!(post(port, &referee.start_message("m", 0)).status, 409);
    assert_eq!(post(port, "(play m ((mark 1 1) noop))").status, 400);
    assert_eq!(post(port, "(play m nil)").status, 200);
    assert_eq!(post(port, "(play m ((mark 9 9) noop))").status, 400);
    assert_eq!(post(port, "(play m (noop noop))").status, 400);
    assert_eq!(post(port, "(play m nil)").status, 400);
    assert_eq!(post(port, "(abort m)").body, "done");
    assert_eq!(post(port, "(play m nil)").status, 404);
    // The player goes on serving: info, then a whole valid match.
    assert_eq!(post(port, "(info)").body, "available");
    let rewards = referee.play("after-errors", &[Seat::Remote(port), Seat::Random(7)]);
    assert!(rewards[0] >= rewards[1], "{rewards:?}");
}

#[test]
fn stalled_clients_do_not_hold_up_the_others() {
    // Four clients announce a body and send only part of it, then wait (tiny_http has no read
    // timeout); they must not hold the threads that answer the others.
    let server = Server::start_with(None, &["--max-matches", "1"]);
    let port = server.port;
    let stalled: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
            let head = format!(
                "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000\r\n\r\n(info"
            );
            s.write_all(head.as_bytes()).expect("writes");
            s
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // The reply comes once the stalled reads time out (a test that would hang fails instead).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(post(port, "(info)"));
    });
    let reply = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("a reply within 20 s: the stalled clients hold every worker");
    assert_eq!(reply.status, 200, "{}", reply.body);
    drop(stalled);
}
