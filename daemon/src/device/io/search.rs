//! The search worker: one thread for every clock of a supervisor that runs the full
//! verdict on a position (who can still mate, what a flag decides: the game crate's
//! `winnable::judge`) off the device thread, and hands each answer back to the actor that
//! asked, which gives it to its session ([`Session::handle_verdict`]).
//!
//! A search takes microseconds usually and about a second on the worst positions known:
//! were it run on the device thread, every board's presses would wait behind it. Jobs are
//! run in the order asked; the thread runs at the nice value of the other writers
//! (`defer_to_devices`), started on first use, and ends when the last handle is gone. It
//! must not know games or clocks beyond the job: a position in, a verdict out.
//!
//! [`Session::handle_verdict`]: chessclock_device::session::Session::handle_verdict

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, OnceLock};

use chessclock_game::Judgement;
use tokio::sync::mpsc::UnboundedSender;

use chessclock_device::session::SearchRequest;

/// A verdict for the search `id` asked.
pub(crate) type Answer = (u64, Judgement);

/// A search and where its answer goes.
struct Job {
    request: SearchRequest,
    reply: UnboundedSender<Answer>,
}

/// The search worker of a supervisor's clocks. Cloned to every clock; the thread ends when
/// the last clone is gone.
#[derive(Clone, Default)]
pub(crate) struct Searcher(Arc<OnceLock<Option<Sender<Job>>>>);

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Searcher")
    }
}

impl Searcher {
    fn sender(&self) -> Option<&Sender<Job>> {
        self.0
            .get_or_init(|| {
                let (tx, rx) = channel();
                std::thread::Builder::new()
                    .name("chessclock-search".into())
                    .spawn(move || {
                        crate::device::io::runtime::defer_to_devices("search");
                        run(&rx);
                    })
                    .map_err(|e| tracing::error!("cannot start the search worker: {e}"))
                    .ok()
                    .map(|_| tx)
            })
            .as_ref()
    }

    /// Run `request` and send its answer to `reply`. Without a worker (its thread could not
    /// start) nothing answers: the session's wait runs out and the position counts as not
    /// decided.
    pub(crate) fn search(&self, request: SearchRequest, reply: UnboundedSender<Answer>) {
        if let Some(tx) = self.sender() {
            let _ = tx.send(Job { request, reply });
        }
    }
}

fn run(rx: &Receiver<Job>) {
    while let Ok(job) = rx.recv() {
        let judgement = job.request.run();
        // The clock may be gone meanwhile.
        let _ = job.reply.send((job.request.id, judgement));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessclock_game::shakmaty::Chess;
    use chessclock_game::winnable::Rulebook;

    #[tokio::test]
    async fn the_worker_answers_each_search_with_its_id_in_order() {
        let searcher = Searcher::default();
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for id in [3, 4] {
            let request = SearchRequest {
                id,
                position: Chess::default(),
                rulebook: Rulebook::Fide,
            };
            searcher.search(request, tx.clone());
        }
        let (first, judgement) = rx.recv().await.expect("an answer");
        assert_eq!(first, 3);
        assert_eq!(
            judgement.wins_on_flag(),
            (Some(true), Some(true)),
            "from the start both can mate"
        );
        assert_eq!(rx.recv().await.map(|a| a.0), Some(4));
    }
}
