//! The journal writer against real files: what is acknowledged survives a reopen, and a full
//! disk loses nothing: requests are answered "not durable" while it is full, and once space
//! is back the journal is rewritten whole with every record. The disk is a real, tiny tmpfs
//! (as root), and, for every user, a simulated one (`store::full_disk`: `ENOSPC` from the
//! journal's writes, fsyncs and compactions).

use std::path::{Path, PathBuf};
use std::process::Command;

use tokio::sync::oneshot;

use super::*;
use crate::engine::notation;
use crate::engine::{Input, Side};

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("persist-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// One writer for these tests, as a daemon has one for its clocks.
fn journals() -> &'static Journals {
    static JOURNALS: std::sync::OnceLock<Journals> = std::sync::OnceLock::new();
    JOURNALS.get_or_init(Journals::default)
}

fn start() -> GameStart {
    GameStart {
        control: notation::parse("G/5").expect("notation").control,
        t_ms: 0,
        wall_ms: wall_ms(),
        game_id: None,
    }
}

/// The n-th input of a game: White starts, then the sides press in turn.
fn nth_input(n: u64) -> Journaled {
    let input = match n {
        0 => Input::Start { side: Side::White },
        n if n % 2 == 1 => Input::Press { side: Side::White },
        _ => Input::Press { side: Side::Black },
    };
    Journaled::Input {
        t_ms: n * 100,
        wall_ms: wall_ms(),
        input,
    }
}

fn acknowledged(p: &Persist) -> Result<Reply, DeviceError> {
    let (tx, rx) = oneshot::channel();
    p.reply_when_durable(tx, Ok(Reply::Done));
    rx.blocking_recv().expect("the writer answers")
}

fn replayed_inputs(dir: &Path, name: &str) -> usize {
    let (_p, restored) = Persist::open(journals(), dir, name, start()).expect("reopen");
    let r = restored.expect("a game to resume");
    assert!(r.rejected.is_empty(), "{:?}", r.problems);
    r.records
        .iter()
        .filter(|e| matches!(e.rec, Journaled::Input { .. }))
        .count()
}

#[test]
fn acknowledged_records_come_back_after_reopen() {
    let dir = scratch("reopen");
    {
        let (p, restored) = Persist::open(journals(), &dir, "clock-a", start()).expect("open");
        assert!(restored.is_none(), "a new store has no game");
        p.new_game(start());
        for n in 0..5 {
            p.append(nth_input(n));
        }
        assert_eq!(acknowledged(&p), Ok(Reply::Done));
    }
    assert_eq!(replayed_inputs(&dir, "clock-a"), 5);
    // The same name opened again right after a close: the lock was released in order.
    assert_eq!(replayed_inputs(&dir, "clock-a"), 5);
    // A lost snapshot loses nothing: the journal starts with the game's start.
    std::fs::remove_file(dir.join("clock-a.snapshot")).expect("remove snapshot");
    assert_eq!(replayed_inputs(&dir, "clock-a"), 5);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_damaged_snapshot_is_set_aside_and_the_journal_replayed() {
    let dir = scratch("bad-snapshot");
    {
        let (p, _) = Persist::open(journals(), &dir, "clock-b", start()).expect("open");
        p.new_game(start());
        for n in 0..3 {
            p.append(nth_input(n));
        }
        assert_eq!(acknowledged(&p), Ok(Reply::Done));
    }
    let snapshot = dir.join("clock-b.snapshot");
    let mut bytes = std::fs::read(&snapshot).expect("a snapshot");
    bytes[12] ^= 0x20;
    std::fs::write(&snapshot, &bytes).expect("damage it");
    assert_eq!(replayed_inputs(&dir, "clock-b"), 3);
    assert!(
        !snapshot.exists(),
        "the damaged snapshot is no longer in the way"
    );
    let kept: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("clock-b.snapshot.bad-")
        })
        .map(|e| std::fs::read(e.path()).expect("read"))
        .collect();
    assert_eq!(kept, [bytes], "the damaged snapshot is kept, byte for byte");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tmpfs of `kib` KiB mounted at a fresh directory, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(kib: u32) -> Option<Tmpfs> {
        let dir = scratch("tmpfs");
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Fill the file system at `dir` with one file until a write fails.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).expect("filler");
    let block = [0u8; 1024];
    while f.write_all(&block).and_then(|()| f.sync_all()).is_ok() {}
    path
}

/// What a full disk must not break, whatever fills it: `fill` fills the disk of `dir`, `free`
/// gives space back.
fn full_disk_keeps_every_record(dir: &Path, name: &str, fill: impl FnOnce(), free: impl FnOnce()) {
    let (p, _) = Persist::open(journals(), dir, name, start()).expect("open");
    p.new_game(start());
    p.append(nth_input(0));
    p.append(nth_input(1));
    assert_eq!(acknowledged(&p), Ok(Reply::Done));

    fill();
    // The journal's last page may still have room: append until the disk refuses one.
    let mut n = 2;
    let msg = loop {
        assert!(n < 200, "the full file system never refused a record");
        p.append(nth_input(n));
        n += 1;
        if let Err(DeviceError::Device(msg)) = acknowledged(&p) {
            break msg;
        }
    };
    assert!(
        msg.contains("took effect") && msg.contains("No space"),
        "{msg}"
    );
    // Still full: later records are not acknowledged either, and none is appended behind a gap.
    p.append(nth_input(n));
    n += 1;
    assert!(acknowledged(&p).is_err());

    free();
    p.append(nth_input(n));
    n += 1;
    assert_eq!(
        acknowledged(&p),
        Ok(Reply::Done),
        "rewritten whole once there is room"
    );
    let journal = dir.join(format!("{name}.journal"));
    assert_eq!(
        std::fs::metadata(&journal).expect("journal").len(),
        0,
        "the snapshot holds every record, the journal starts empty again"
    );
    drop(p);
    let n = usize::try_from(n).expect("small");
    assert_eq!(replayed_inputs(dir, name), n, "every record, none lost");
}

#[test]
fn a_full_disk_loses_no_acknowledged_or_later_record() {
    let Some(fs) = Tmpfs::mount(256) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root and must be able to mount a tmpfs for this test"
        );
        eprintln!(
            "skipped: mounting a tmpfs needs root (CI runs it); \
             a_simulated_full_disk_loses_no_acknowledged_or_later_record runs for every user"
        );
        return;
    };
    let filler = fs.0.join("filler");
    full_disk_keeps_every_record(
        &fs.0.join("state"),
        "clock-full",
        || assert_eq!(fill(&fs.0), filler),
        || std::fs::remove_file(&filler).expect("free space"),
    );
}

/// The same promises on a simulated full disk: no root, no tmpfs. The first write after the
/// disk is full is cut short (half its line reaches the file) and every fsync and compaction
/// fails with `ENOSPC` until space is given back.
#[test]
fn a_simulated_full_disk_loses_no_acknowledged_or_later_record() {
    let dir = scratch("simulated-full");
    full_disk_keeps_every_record(
        &dir,
        "clock-sim",
        || crate::store::full_disk::set(&dir, true),
        || crate::store::full_disk::set(&dir, false),
    );
    let _ = std::fs::remove_dir_all(&dir);
}
