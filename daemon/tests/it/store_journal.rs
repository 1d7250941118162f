//! Journal and snapshot durability: kill-safety by truncating at every byte, bit flips,
//! snapshot + journal replay, locking, and version mismatches that must not destroy data.

use std::path::{Path, PathBuf};

use chessclockd::store::{Journal, Numbered, StoreError, read_snapshot, write_snapshot};
use serde::{Deserialize, Serialize};

/// A directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("chessclockd-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Event {
    Press { clock: u32, at_ms: u64 },
    Note(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct State {
    presses: u32,
}

type Opened = (Journal<Event>, chessclockd::store::Recovered<Event, State>);

fn open(dir: &Path) -> Result<Opened, StoreError> {
    Journal::<Event>::open::<State>(dir, "games")
}

fn sample() -> Vec<Event> {
    vec![
        Event::Press {
            clock: 0,
            at_ms: 1_000,
        },
        Event::Note("line\nbreak, \"quotes\" and ünïcode".to_owned()),
        Event::Press {
            clock: 3,
            at_ms: u64::MAX,
        },
        Event::Note(String::new()),
    ]
}

/// Write `events` to a fresh journal in `dir`; returns the file's bytes and the offset just
/// after each record.
fn write_all(dir: &Path, events: &[Event]) -> (Vec<u8>, Vec<usize>) {
    let (mut j, rec) = open(dir).expect("open fresh");
    assert!(rec.records.is_empty() && rec.snapshot.is_none() && rec.repair.is_none());
    let mut ends = Vec::new();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(j.append(e).expect("append"), i as u64 + 1);
        ends.push(j.len_bytes() as usize);
    }
    let path = j.path().to_path_buf();
    drop(j);
    (std::fs::read(path).expect("read journal"), ends)
}

fn records(events: &[Event], first_seq: u64) -> Vec<Numbered<Event>> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| Numbered {
            seq: first_seq + i as u64,
            data: e.clone(),
        })
        .collect()
}

#[test]
fn appended_records_come_back_in_order_after_reopen() {
    let dir = TempDir::new("journal-roundtrip");
    let events = sample();
    let (bytes, ends) = write_all(dir.path(), &events);
    assert_eq!(bytes.len(), *ends.last().expect("records"));
    assert_eq!(
        bytes.iter().filter(|&&b| b == b'\n').count(),
        events.len(),
        "one line per record"
    );
    let (j, rec) = open(dir.path()).expect("reopen");
    assert_eq!(rec.records, records(&events, 1));
    assert_eq!(rec.repair, None);
    assert_eq!(j.next_seq(), events.len() as u64 + 1);
}

#[test]
fn records_written_together_are_the_same_lines_as_records_written_one_by_one() {
    let events = sample();
    let one_by_one = TempDir::new("journal-one-by-one");
    let (bytes, _) = write_all(one_by_one.path(), &events);
    let together = TempDir::new("journal-together");
    let (mut j, _) = open(together.path()).expect("open fresh");
    j.write_all(&events[..1]).expect("first record");
    j.write_all(&events[1..]).expect("the others in one write");
    j.sync().expect("sync");
    assert_eq!(j.next_seq(), events.len() as u64 + 1);
    let path = j.path().to_path_buf();
    drop(j);
    assert_eq!(std::fs::read(path).expect("read journal"), bytes);
    let (_, rec) = open(together.path()).expect("reopen");
    assert_eq!(rec.records, records(&events, 1));
}

#[test]
fn truncation_at_every_byte_recovers_every_complete_record() {
    let src = TempDir::new("journal-src");
    let events = sample();
    let (bytes, ends) = write_all(src.path(), &events);
    for cut in 0..=bytes.len() {
        let dir = TempDir::new("journal-cut");
        std::fs::write(dir.path().join("games.journal"), &bytes[..cut]).expect("write cut");
        let (mut j, rec) = open(dir.path()).unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        let complete = ends.iter().filter(|&&end| end <= cut).count();
        let boundary = if complete == 0 { 0 } else { ends[complete - 1] };
        assert_eq!(rec.records, records(&events[..complete], 1), "cut {cut}");
        if cut == boundary {
            assert_eq!(rec.repair, None, "cut {cut} is on a record boundary");
        } else {
            let repair = rec
                .repair
                .unwrap_or_else(|| panic!("cut {cut}: torn tail not reported"));
            assert_eq!(repair.offset, boundary as u64, "cut {cut}");
            assert_eq!(repair.cut_bytes, (cut - boundary) as u64, "cut {cut}");
            let saved = std::fs::read(&repair.saved_to).expect("saved tail");
            assert_eq!(
                saved,
                &bytes[boundary..cut],
                "cut {cut}: cut bytes are kept"
            );
        }
        // The journal was truncated to the boundary: appending continues the sequence cleanly.
        assert_eq!(
            j.append(&Event::Note("after".into())).expect("append"),
            complete as u64 + 1
        );
        drop(j);
        let (_, again) = open(dir.path()).expect("reopen");
        assert_eq!(again.repair, None, "cut {cut}: second open is clean");
        assert_eq!(again.records.len(), complete + 1, "cut {cut}");
    }
}

#[test]
fn every_single_bit_flip_is_detected_and_only_intact_records_survive() {
    let src = TempDir::new("journal-flip-src");
    let events = sample();
    let (bytes, ends) = write_all(src.path(), &events);
    for pos in 0..bytes.len() {
        for bit in [0u8, 3, 7] {
            let mut damaged = bytes.clone();
            damaged[pos] ^= 1 << bit;
            let dir = TempDir::new("journal-flip");
            std::fs::write(dir.path().join("games.journal"), &damaged).expect("write damaged");
            let (_, rec) = open(dir.path()).unwrap_or_else(|e| panic!("pos {pos} bit {bit}: {e}"));
            // The damaged record is the one whose line contains `pos`.
            let hit = ends
                .iter()
                .position(|&end| pos < end)
                .expect("pos inside a record");
            let start = if hit == 0 { 0 } else { ends[hit - 1] };
            assert_eq!(
                rec.records,
                records(&events[..hit], 1),
                "pos {pos} bit {bit}"
            );
            let repair = rec
                .repair
                .unwrap_or_else(|| panic!("pos {pos} bit {bit}: flip not detected"));
            assert_eq!(repair.offset, start as u64, "pos {pos} bit {bit}");
        }
    }
}

#[test]
fn snapshot_plus_journal_tail_replays_and_sequence_continues() {
    let dir = TempDir::new("journal-compact");
    let events = sample();
    let (mut j, _) = open(dir.path()).expect("open");
    for e in &events[..3] {
        j.append(e).expect("append");
    }
    j.compact(&State { presses: 2 }).expect("compact");
    assert_eq!(j.len_bytes(), 0);
    assert_eq!(j.append(&events[3]).expect("append"), 4);
    drop(j);
    let (j, rec) = open(dir.path()).expect("reopen");
    assert_eq!(rec.snapshot, Some(State { presses: 2 }));
    assert_eq!(rec.records, records(&events[3..], 4));
    assert_eq!(j.next_seq(), 5);
}

/// A removed store leaves no journal and no snapshot (what a detached clock leaves), files
/// of other stores beside it stay, and a store opened again under the name starts empty.
#[test]
fn a_removed_store_leaves_no_files_and_reopens_empty() {
    let dir = TempDir::new("journal-remove");
    let events = sample();
    let (mut j, _) = open(dir.path()).expect("open");
    j.append(&events[0]).expect("append");
    j.compact(&State { presses: 1 }).expect("compact");
    j.append(&events[1]).expect("append");
    let (mut other, _) = Journal::<Event>::open::<State>(dir.path(), "other").expect("open");
    other.append(&events[2]).expect("append");
    j.remove().expect("remove");
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["other.journal"]);
    let (j, rec) = open(dir.path()).expect("reopen");
    assert_eq!(rec.snapshot, None);
    assert!(rec.records.is_empty());
    assert_eq!(j.next_seq(), 1);
}

#[test]
fn crash_between_snapshot_and_truncate_skips_covered_records() {
    let dir = TempDir::new("journal-half-compact");
    let events = sample();
    write_all(dir.path(), &events);
    // As if the daemon died after writing the snapshot for seq 2 but before emptying the journal.
    write_snapshot(dir.path(), "games", 2, &State { presses: 1 }).expect("snapshot");
    let (j, rec) = open(dir.path()).expect("reopen");
    assert_eq!(rec.snapshot, Some(State { presses: 1 }));
    assert_eq!(rec.records, records(&events[2..], 3));
    assert_eq!(j.next_seq(), 5);
}

#[test]
fn leftover_temp_snapshot_is_ignored_and_removed() {
    let dir = TempDir::new("snapshot-tmp");
    write_snapshot(dir.path(), "games", 7, &State { presses: 7 }).expect("snapshot");
    let tmp = dir.path().join("games.snapshot.tmp");
    std::fs::write(&tmp, b"7 00000000 {\"presses\":").expect("write tmp");
    let got = read_snapshot::<State>(dir.path(), "games").expect("read");
    assert_eq!(got, Some((7, State { presses: 7 })));
    assert!(!tmp.exists());
}

#[test]
fn damaged_snapshot_is_an_error_naming_the_file() {
    let dir = TempDir::new("snapshot-bad");
    write_snapshot(dir.path(), "games", 1, &State { presses: 1 }).expect("snapshot");
    let path = dir.path().join("games.snapshot");
    let mut bytes = std::fs::read(&path).expect("read");
    let last = bytes.len() - 3;
    bytes[last] ^= 0x01;
    std::fs::write(&path, &bytes).expect("write");
    let err = open(dir.path()).expect_err("damaged snapshot rejected");
    assert!(matches!(err, StoreError::CorruptSnapshot { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("games.snapshot is damaged: checksum mismatch"),
        "{err}"
    );
}

#[test]
fn a_second_open_is_refused_while_the_first_holds_the_lock() {
    let dir = TempDir::new("journal-lock");
    let (first, _) = open(dir.path()).expect("open");
    let err = open(dir.path()).expect_err("second open refused");
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    drop(first);
    assert!(open(dir.path()).is_ok(), "lock released on drop");
}

#[test]
fn intact_records_of_another_type_are_an_error_and_the_file_is_untouched() {
    let dir = TempDir::new("journal-version");
    let (mut j, _) = Journal::<String>::open::<State>(dir.path(), "games").expect("open");
    j.append(&"written by another version".to_owned())
        .expect("append");
    drop(j);
    let before = std::fs::read(dir.path().join("games.journal")).expect("read");
    let err = open(dir.path()).expect_err("type mismatch");
    assert!(
        matches!(
            err,
            StoreError::Decode {
                seq: 1,
                offset: 0,
                ..
            }
        ),
        "{err}"
    );
    let after = std::fs::read(dir.path().join("games.journal")).expect("read");
    assert_eq!(before, after, "nothing was cut");
}

#[test]
fn out_of_sequence_record_cuts_the_tail() {
    let src = TempDir::new("journal-seq-src");
    let events = sample();
    let (bytes, ends) = write_all(src.path(), &events[..2]);
    // Append a valid line from another journal whose seq is 1 again: it must not be replayed.
    let mut spliced = bytes.clone();
    spliced.extend_from_slice(&bytes[..ends[0]]);
    let dir = TempDir::new("journal-seq");
    std::fs::write(dir.path().join("games.journal"), &spliced).expect("write");
    let (_, rec) = open(dir.path()).expect("open");
    assert_eq!(rec.records, records(&events[..2], 1));
    let repair = rec.repair.expect("repair reported");
    assert_eq!(repair.offset, bytes.len() as u64);
    assert!(
        repair.reason.contains("does not follow"),
        "{}",
        repair.reason
    );
}
