//! The end-to-end tests, one binary: real binaries, a real dbus-daemon, emulated boards on ptys,
//! chromium and mosquitto. One module per former test file; the shared pieces are the
//! `chessclock_tests` library (tests/src). Tests run in parallel threads of this one process:
//! none may change the process's environment, working directory or any global.

mod board_claims;
mod board_corrections;
mod board_game;
mod board_identity;
mod board_observe;
mod board_restart;
mod bridge_alerts;
mod bridge_delay;
mod bridge_fleet;
mod bridge_http;
mod bridge_mqtt;
mod bridge_pages;
mod bridge_pgn;
mod bridge_push_problems;
mod bridge_screen;
mod bridge_tls;
mod bus_clock;
mod bus_get_clocks;
mod bus_manager;
mod bus_policy;
mod bus_words;
mod cli_doctor;
mod cli_games;
mod cli_live;
mod cli_names;
mod cli_watch;
mod controls;
mod daemon_bus;
mod daemon_e2e;
mod daemon_lever;
mod daemon_link;
mod daemon_scan;
mod daemon_waiting;
mod demo;
mod doc_paths;
mod emu_cli;
mod faults_boards;
mod faults_files;
mod faults_kill;
mod harness;
mod live_dir;
mod log_control;
mod log_control_bridge;
mod observe_checks;
mod packaging;
mod relay_next;
mod relay_paper;
mod relay_round;
mod relay_tags;
mod schemas;
mod system_files;
mod tty_access;
mod udev_boards;
