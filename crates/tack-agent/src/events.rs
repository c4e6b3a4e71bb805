//! The event bus: the agent speaks events, and the transcript, printers and
//! other consumers observe them. None of them reaches into the loop.

use std::sync::Arc;

use tack_protocol::SessionEvent;

/// Consumes session events. Called synchronously, in order, from the loop:
/// keep it quick (write a line, send on a channel).
pub trait EventObserver: Send + Sync {
    fn on_event(&self, event: &SessionEvent);
}

impl<F: Fn(&SessionEvent) + Send + Sync> EventObserver for F {
    fn on_event(&self, event: &SessionEvent) {
        self(event)
    }
}

/// A cheap-to-clone list of observers.
#[derive(Clone, Default)]
pub struct EventBus {
    observers: Vec<Arc<dyn EventObserver>>,
}

impl std::fmt::Debug for EventBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventBus")
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl EventBus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an observer; observers see events in the order they were added.
    pub fn with(mut self, observer: Arc<dyn EventObserver>) -> Self {
        self.observers.push(observer);
        self
    }

    pub fn emit(&self, event: &SessionEvent) {
        for observer in &self.observers {
            observer.on_event(event);
        }
    }
}
