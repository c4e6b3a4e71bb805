//! The event bus: the agent speaks events, and the transcript, printers and
//! other consumers observe them. None of them reaches into the loop.
//!
//! An event is encoded as JSON at most once, whoever asks for it
//! ([`Emitted::json`]): the transcript writer and a JSON printer share the
//! bytes, and a `message` event reuses the message's own encoding when the
//! loop has one.

use std::cell::OnceCell;
use std::sync::Arc;

use tack_protocol::SessionEvent;

/// Consumes session events. Called synchronously, in order, from the loop:
/// keep it quick (write a line, send on a channel).
pub trait EventObserver: Send + Sync {
    fn on_event(&self, event: &SessionEvent);

    /// The event with its JSON at hand (encoded once for every observer
    /// that asks). The default hands the event to [`EventObserver::on_event`].
    fn on_emitted(&self, emitted: &Emitted<'_>) {
        self.on_event(emitted.event());
    }
}

impl<F: Fn(&SessionEvent) + Send + Sync> EventObserver for F {
    fn on_event(&self, event: &SessionEvent) {
        self(event)
    }
}

/// An event being delivered, with its JSON encoded on first request.
pub struct Emitted<'a> {
    event: &'a SessionEvent,
    /// The `message` of a `message` event, encoded already.
    message_json: Option<&'a [u8]>,
    json: OnceCell<Vec<u8>>,
}

impl<'a> Emitted<'a> {
    pub fn new(event: &'a SessionEvent) -> Self {
        Self {
            event,
            message_json: None,
            json: OnceCell::new(),
        }
    }

    /// A `message` event whose message is encoded already: `message_json`
    /// must be `serde_json::to_vec` of it (it is ignored for other events).
    pub fn with_message_json(event: &'a SessionEvent, message_json: Option<&'a [u8]>) -> Self {
        Self {
            event,
            message_json,
            json: OnceCell::new(),
        }
    }

    pub fn event(&self) -> &SessionEvent {
        self.event
    }

    /// The event as one JSON object (`serde_json::to_vec(event)`), encoded
    /// the first time it is asked for.
    pub fn json(&self) -> serde_json::Result<&[u8]> {
        if let Some(json) = self.json.get() {
            return Ok(json);
        }
        let json = match (self.event, self.message_json) {
            (SessionEvent::Message { .. }, Some(message)) => {
                const HEAD: &[u8] = br#"{"type":"message","message":"#;
                let mut json = Vec::with_capacity(HEAD.len() + message.len() + 1);
                json.extend_from_slice(HEAD);
                json.extend_from_slice(message);
                json.push(b'}');
                json
            }
            _ => serde_json::to_vec(self.event)?,
        };
        Ok(self.json.get_or_init(|| json))
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
        self.deliver(&Emitted::new(event));
    }

    /// [`EventBus::emit`] for a `message` event whose message is encoded
    /// already (`serde_json::to_vec` of it), so no observer encodes it again.
    pub fn emit_message(&self, event: &SessionEvent, message_json: Option<&[u8]>) {
        self.deliver(&Emitted::with_message_json(event, message_json));
    }

    fn deliver(&self, emitted: &Emitted<'_>) {
        for observer in &self.observers {
            observer.on_emitted(emitted);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use tack_protocol::{Message, SessionEvent};

    use super::*;

    /// Records the JSON it is handed.
    struct Json(Mutex<Vec<Vec<u8>>>);

    impl EventObserver for Json {
        fn on_event(&self, _: &SessionEvent) {
            unreachable!("on_emitted is overridden")
        }
        fn on_emitted(&self, emitted: &Emitted<'_>) {
            self.0
                .lock()
                .unwrap()
                .push(emitted.json().unwrap().to_vec());
        }
    }

    #[test]
    fn a_message_events_json_reuses_the_messages_and_is_the_events_own() {
        let message = Message::user_text("hi \"there\"");
        let event = SessionEvent::Message {
            message: message.clone(),
        };
        let encoded = serde_json::to_vec(&message).unwrap();
        let seen = Arc::new(Json(Mutex::new(Vec::new())));
        let plain = Arc::new(Mutex::new(Vec::new()));
        let p = plain.clone();
        let bus = EventBus::new()
            .with(seen.clone())
            .with(Arc::new(move |e: &SessionEvent| {
                p.lock().unwrap().push(e.clone())
            }))
            .with(seen.clone());
        bus.emit_message(&event, Some(&encoded));
        bus.emit(&event);
        let want = serde_json::to_vec(&event).unwrap();
        assert_eq!(*seen.0.lock().unwrap(), vec![want.clone(); 4]);
        assert_eq!(*plain.lock().unwrap(), vec![event.clone(), event]);
    }

    #[test]
    fn the_json_is_encoded_once() {
        let event = SessionEvent::Message {
            message: Message::user_text("x"),
        };
        let emitted = Emitted::new(&event);
        let a = emitted.json().unwrap().as_ptr();
        let b = emitted.json().unwrap().as_ptr();
        assert_eq!(a, b, "the same bytes, not a second encoding");
    }
}
