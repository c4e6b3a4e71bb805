//! A served call's progress: the tool's own reports ([`tack_tool::ProgressSink`])
//! forwarded to a client that sent a `progressToken`, as
//! `notifications/progress`.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};

/// One `notifications/progress`; whether it was sent.
pub(crate) async fn notify_progress(
    peer: &Peer<RoleServer>,
    token: ProgressToken,
    progress: f64,
    total: Option<f64>,
    message: Option<String>,
) -> bool {
    let mut param = ProgressNotificationParam::new(token, progress);
    param.total = total;
    param.message = message;
    peer.notify_progress(param).await.is_ok()
}

/// Sends a host call's progress reports ([`tack_tool::ProgressSink`]) to the
/// client as `notifications/progress`, in order, with a progress value that
/// only grows (the spec requires it; a report that would not is dropped).
pub(crate) struct ProgressForwarder {
    done: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

impl ProgressForwarder {
    pub(crate) fn start(
        peer: Peer<RoleServer>,
        token: ProgressToken,
    ) -> (tack_tool::ProgressSink, ProgressForwarder) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<tack_tool::Progress>();
        let (done, mut finished) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let mut last = f64::NEG_INFINITY;
            let mut send = async |p: tack_tool::Progress| {
                if p.progress <= last || !p.progress.is_finite() {
                    return;
                }
                last = p.progress;
                notify_progress(&peer, token.clone(), p.progress, p.total, p.message).await;
            };
            loop {
                tokio::select! {
                    biased;
                    report = rx.recv() => match report {
                        Some(p) => send(p).await,
                        None => return,
                    },
                    _ = &mut finished => {
                        while let Ok(p) = rx.try_recv() {
                            send(p).await;
                        }
                        return;
                    }
                }
            }
        });
        let sink = tack_tool::ProgressSink::new(move |p| {
            let _ = tx.send(p);
        });
        (sink, ProgressForwarder { done, task })
    }

    /// Sends what was reported so far and stops.
    pub(crate) async fn finish(self) {
        let _ = self.done.send(());
        let _ = self.task.await;
    }
}
