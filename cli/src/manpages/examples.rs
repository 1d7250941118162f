//! The examples on each of chessclockctl's manual pages, by page: data only, checked
//! against the command-line definition by `manpages/tests.rs`; rendering them is
//! `manpages.rs`'s.

/// Examples per subcommand (its page name without `chessclockctl-`): command and what it does.
pub(super) const EXAMPLES: &[(&str, &[(&str, &str)])] = &[
    (
        "chessclockctl",
        &[
            ("chessclockctl list", "the attached clocks"),
            ("chessclockctl watch", "every clock live on one screen"),
            (
                "chessclockctl set 0 \"G/90 inc/30\"",
                "a time control for clock 0",
            ),
        ],
    ),
    (
        "timecontrol",
        &[(
            "chessclockctl timecontrol parse \"40/90 SD/30 inc/30\"",
            "what a notation means",
        )],
    ),
    (
        "timecontrol-parse",
        &[(
            "chessclockctl timecontrol parse \"G/3 inc/2\" --json",
            "the control's JSON form",
        )],
    ),
    (
        "position-assess",
        &[
            (
                "chessclockctl position assess --rules uscf \"8/8/5n2/5k2/8/8/2K5/7R w - - 0 1\"",
                "what a flag decides under US Chess rule 14E",
            ),
            (
                "chessclockctl position assess - < positions.fen",
                "one JSON line per FEN, in order",
            ),
        ],
    ),
    (
        "simulate",
        &[(
            "chessclockctl simulate --control \"G/3 inc/2\" --script \"start; 5s press; 1s press\"",
            "a scripted game offline",
        )],
    ),
    (
        "decode",
        &[(
            "chessclockctl decode --format base64-lines capture.inbytes --json",
            "board traffic as messages",
        )],
    ),
    (
        "replay",
        &[(
            "chessclockctl replay --format base64-lines capture.inbytes",
            "the moves, clocks and result of a recorded board stream",
        )],
    ),
    (
        "list",
        &[("chessclockctl list --json", "every clock, for scripts")],
    ),
    (
        "status",
        &[
            ("chessclockctl status 0", "clock 0 in detail"),
            ("chessclockctl status --json", "every clock as JSON"),
        ],
    ),
    (
        "watch",
        &[("chessclockctl watch", "a live table; space pages, q quits")],
    ),
    (
        "monitor",
        &[("chessclockctl monitor --json", "events as JSON lines")],
    ),
    (
        "set",
        &[(
            "chessclockctl set 0 \"G/15 df/60:10:hybrid\"",
            "a double-flag control for clock 0",
        )],
    ),
    (
        "start",
        &[(
            "chessclockctl start 0 --side white",
            "start clock 0 with White to move",
        )],
    ),
    (
        "pause",
        &[(
            "chessclockctl pause 0",
            "stop clock 0, keeping the turn's time",
        )],
    ),
    (
        "resume",
        &[("chessclockctl resume 0", "continue the same turn")],
    ),
    (
        "press",
        &[(
            "chessclockctl press 0 white",
            "end White's turn as the lever would",
        )],
    ),
    (
        "adjust",
        &[(
            "chessclockctl adjust 0 black main_ms add 120000",
            "two minutes more for Black (paused game)",
        )],
    ),
    (
        "moves",
        &[(
            "chessclockctl moves 0 white 39",
            "correct White's move counter",
        )],
    ),
    (
        "claim",
        &[
            (
                "chessclockctl claim 0 white",
                "White, on main time, claims the double-flag draw",
            ),
            (
                "chessclockctl claim 0 black --kind threefold",
                "Black, to move, claims a threefold repetition: judged from the board at once",
            ),
            (
                "chessclockctl claim 0 white --kind insufficient-losing-chances",
                "USCF 14H: the clock pauses for the director's ruling",
            ),
        ],
    ),
    (
        "doctor",
        &[
            (
                "chessclockctl doctor",
                "is this machine ready to run games?",
            ),
            (
                "chessclockctl doctor -J",
                "the same as a JSON list of {check, ok, skipped, detail}, for monitoring",
            ),
        ],
    ),
    (
        "ruling",
        &[
            (
                "chessclockctl ruling 0 delay --seconds 5",
                "the claimant's time halved, 5 s delay for the rest of the game",
            ),
            ("chessclockctl ruling 0 draw", "the 14H claim upheld"),
        ],
    ),
    (
        "result",
        &[("chessclockctl result 0 1-0", "record White's win")],
    ),
    (
        "new-game",
        &[(
            "chessclockctl new-game 0",
            "a fresh game with the same control",
        )],
    ),
    (
        "mode",
        &[(
            "chessclockctl mode 0 observe",
            "follow the clock's own mode instead of driving it",
        )],
    ),
    (
        "text",
        &[(
            "chessclockctl text 0 \"ROUND 5\" --ms 3000",
            "text on the clock's display",
        )],
    ),
    ("beep", &[("chessclockctl beep 0", "a short beep")]),
    (
        "identify",
        &[
            (
                "chessclockctl identify board:12",
                "board 12's clock shows \"bd 12\" and beeps for 5 s: find it in the hall",
            ),
            (
                "chessclockctl identify --all --seconds 10",
                "every clock shows its board number for 10 s, to check the numbering",
            ),
        ],
    ),
    (
        "attach",
        &[(
            "chessclockctl attach /dev/ttyACM0",
            "drive the board on that port",
        )],
    ),
    (
        "detach",
        &[
            (
                "chessclockctl detach 0",
                "let go of clock 0; attached again, its board gets its game and number back",
            ),
            (
                "chessclockctl detach 0 --archive",
                "let go of clock 0 and end its game: written to games/, its journal removed",
            ),
        ],
    ),
    (
        "replace",
        &[(
            "chessclockctl replace board:12 --with /dev/ttyACM5",
            "board 12's game goes on on the spare board plugged into ttyACM5",
        )],
    ),
    (
        "renumber",
        &[(
            "chessclockctl renumber ttyACM3 37",
            "the board on ttyACM3 is board 37, now and after every restart",
        )],
    ),
    (
        "add-virtual",
        &[(
            "chessclockctl add-virtual test",
            "a clock backed by the built-in emulator",
        )],
    ),
    (
        "pgn",
        &[(
            "chessclockctl pgn 0 > game.pgn",
            "the live PGN of clock 0's game",
        )],
    ),
    (
        "board",
        &[("chessclockctl board 0", "the position on clock 0's board")],
    ),
    (
        "info",
        &[(
            "chessclockctl info 0 white=\"Carlsen, Magnus\" round=7",
            "game information (PGN tags)",
        )],
    ),
    (
        "move",
        &[
            (
                "chessclockctl move 0 undo",
                "take back the last ply the board misread",
            ),
            (
                "chessclockctl move 0 force e7e5",
                "play e7e5, which the board did not show",
            ),
        ],
    ),
    (
        "move-undo",
        &[(
            "chessclockctl move 0 undo 2",
            "take back the last two plies",
        )],
    ),
    (
        "move-force",
        &[(
            "chessclockctl move 0 force e7e8q",
            "a promotion the board did not show",
        )],
    ),
    (
        "position",
        &[
            (
                "chessclockctl position 0 board",
                "begin the game from the pieces as they stand",
            ),
            (
                "chessclockctl position assess \"8/3k4/6p1/p2p1pP1/P2P1P2/2K5/8/8 b - - 0 1\"",
                "offline: who can still mate behind a locked pawn wall",
            ),
            (
                "chessclockctl position 0 board --turn black",
                "the same, Black to move",
            ),
            (
                "chessclockctl position 0 \"8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 b - - 12 41\"",
                "an adjourned game, from its FEN",
            ),
        ],
    ),
    (
        "round",
        &[
            (
                "chessclockctl round show",
                "the current round and its boards",
            ),
            (
                "chessclockctl round load round3.csv --round 3",
                "round 3's pairings onto the boards",
            ),
            (
                "chessclockctl round next",
                "every board's next game in the next round",
            ),
        ],
    ),
    (
        "round-next",
        &[
            (
                "chessclockctl round next",
                "once every game of the round has its result",
            ),
            (
                "chessclockctl round next --force",
                "even while games are under way (they are discarded)",
            ),
            (
                "chessclockctl round next --lichess-round EfGh5678",
                "and the bridge pushes the new round to that Lichess round",
            ),
            (
                "chessclockctl round next --json",
                "as JSON; the players `round load --round R+1` kept go to the new games",
            ),
        ],
    ),
    (
        "round-show",
        &[(
            "chessclockctl round show --json",
            "the current round and every board (players, result, clock or paper) as JSON",
        )],
    ),
    (
        "round-check",
        &[
            (
                "chessclockctl round check --control \"G/90 inc/30\"",
                "every board of the round, each check that fails with its fix; exit 1 unless all are ready",
            ),
            (
                "chessclockctl round check --wait",
                "prints each board as it changes and ends (exit 0) once every board is ready",
            ),
        ],
    ),
    (
        "round-result",
        &[
            (
                "chessclockctl round result 21 1-0",
                "paper board 21 (no e-board): White won",
            ),
            (
                "chessclockctl round result 1 1/2-1/2",
                "an e-board's result, as the arbiter's",
            ),
        ],
    ),
    (
        "round-export",
        &[
            (
                "chessclockctl round export --format csv > results.csv",
                "board,white,black,result for the pairing program",
            ),
            (
                "chessclockctl round export --format trf > after-round.trf",
                "the TRF the pairings came from, with this round's results",
            ),
        ],
    ),
    (
        "round-load",
        &[
            (
                "chessclockctl round load pairings.csv",
                "the current round's pairings (board,white,black,... header)",
            ),
            (
                "chessclockctl round load tournament.trf --round 5",
                "round 5 from a Swiss-Manager TRF export",
            ),
            (
                "chessclockctl round load round2.pgn --format pgn --round 2",
                "a tags-only PGN, one game per board",
            ),
            (
                "chessclockctl round load round4.csv --round 4",
                "during round 3: kept for round next, which gives them to the new games",
            ),
        ],
    ),
    (
        "fleet",
        &[
            (
                "chessclockctl fleet --mqtt mqtt://broker.local",
                "every board of every machine",
            ),
            (
                "chessclockctl fleet --mqtt mqtt://broker.local --once -J",
                "the fleet once, as JSON, for a script (exit 3 when the broker is down)",
            ),
        ],
    ),
    (
        "games",
        &[(
            "chessclockctl games list --since today",
            "today's finished games, oldest first",
        )],
    ),
    (
        "games-list",
        &[
            ("chessclockctl games list --round 3", "the games of round 3"),
            (
                "chessclockctl -J games list --state-dir /srv/chessclockd",
                "as JSON, from a non-default state directory",
            ),
        ],
    ),
    (
        "games-export",
        &[
            (
                "chessclockctl games export --since 2026-11-26 > day.pgn",
                "the day's games as one PGN file (group chessclock)",
            ),
            (
                "chessclockctl games export --round 3 > round3.pgn",
                "round 3 only",
            ),
        ],
    ),
    (
        "log-level",
        &[(
            "chessclockctl log-level debug",
            "more detail in the daemon's log (root or group chessclock)",
        )],
    ),
];

/// The examples of the page `name` (`chessclockctl` or a subcommand path like `status`).
pub(super) fn examples(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
    EXAMPLES.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
}
