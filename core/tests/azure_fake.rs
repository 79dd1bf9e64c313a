//! The Azure engine against a fake Azure: a local websocket server inside this test that
//! answers with the documented message shapes (turn.start, audio.metadata with Viseme and
//! WordBoundary events in 100-ns ticks, binary audio frames with a 2-byte header length,
//! turn.end). No network is used.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::result_large_err)]

use std::net::TcpListener;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use npc_core::project::{Gender, Voice};
use npc_core::speech::azure::{AzureConfig, AzureEngine, SAMPLE_RATE};
use npc_core::speech::{SpeechEngine, SpeechError};
use tungstenite::Message;

/// How the fake behaves after reading the request.
#[derive(Clone, Copy, Debug)]
enum FakeAzure {
    /// Answers the whole line.
    Complete,
    /// Sends the first audio frame, then drops the connection.
    CloseMidStream,
    /// Reads the request and never answers.
    Silent,
}

const KEY: &str = "test-key-not-a-secret";

fn text(path: &str, body: &str) -> Message {
    Message::text(format!(
        "X-RequestId:0\r\nContent-Type:application/json\r\nPath:{path}\r\n\r\n{body}"
    ))
}

fn audio(samples: &[i16]) -> Message {
    let header = b"X-RequestId:0\r\nPath:audio\r\nContent-Type:audio/x-wav\r\n";
    let mut bytes = (header.len() as u16).to_be_bytes().to_vec();
    bytes.extend_from_slice(header);
    for s in samples {
        bytes.extend_from_slice(&s.to_le_bytes());
    }
    Message::binary(bytes)
}

/// What the fake saw: the text messages it received and the key header.
type Seen = (Vec<String>, Option<String>);

/// Starts the fake on a free local port; the thread returns what it saw.
fn start(behaviour: FakeAzure) -> (String, JoinHandle<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!(
        "ws://{}/cognitiveservices/websocket/v1",
        listener.local_addr().unwrap()
    );
    let handle = thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut key = None;
        let mut socket = tungstenite::accept_hdr(
            stream,
            |req: &tungstenite::handshake::server::Request, resp| {
                key = req
                    .headers()
                    .get("Ocp-Apim-Subscription-Key")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                Ok(resp)
            },
        )
        .unwrap();
        let mut received = Vec::new();
        while received.len() < 3 {
            if let Message::Text(t) = socket.read().unwrap() {
                received.push(t.to_string());
            }
        }
        match behaviour {
            FakeAzure::Silent => {
                thread::sleep(Duration::from_millis(1500));
                return (received, key);
            }
            FakeAzure::CloseMidStream => {
                socket.send(text("turn.start", "{}")).unwrap();
                socket.send(audio(&[1000; 480])).unwrap();
                // Drop the TCP connection without a close frame.
                drop(socket);
                return (received, key);
            }
            FakeAzure::Complete => {}
        }
        socket
            .send(text("turn.start", r#"{"context": {"serviceTag": "fake"}}"#))
            .unwrap();
        let metadata = r#"{"Metadata": [
            {"Type": "Viseme", "Data": {"Offset": 0, "VisemeId": 0}},
            {"Type": "WordBoundary", "Data": {"Offset": 500000, "Duration": 3000000,
                "text": {"Text": "Bread", "Length": 5, "BoundaryType": "WordBoundary"}}},
            {"Type": "Viseme", "Data": {"Offset": 500000, "VisemeId": 21}},
            {"Type": "Viseme", "Data": {"Offset": 1200000, "VisemeId": 5}},
            {"Type": "Viseme", "Data": {"Offset": 2500000, "VisemeId": 0}}
        ]}"#;
        socket.send(text("audio.metadata", metadata)).unwrap();
        // 2400 samples in two frames, the first of odd byte length to test the carry.
        let samples: Vec<i16> = (0..2400).map(|i| ((i % 100) * 100 - 5000) as i16).collect();
        let mut first = match audio(&samples[..1000]) {
            Message::Binary(b) => b.to_vec(),
            _ => unreachable!(),
        };
        let last_byte = samples[1000].to_le_bytes();
        first.push(last_byte[0]);
        socket.send(Message::binary(first)).unwrap();
        let mut second = match audio(&samples[1001..]) {
            Message::Binary(b) => b.to_vec(),
            _ => unreachable!(),
        };
        // Put the other half of sample 1000 first in the second frame's audio.
        let header_len = usize::from(u16::from_be_bytes([second[0], second[1]]));
        second.insert(2 + header_len, last_byte[1]);
        socket.send(Message::binary(second)).unwrap();
        socket.send(text("turn.end", "{}")).unwrap();
        let _ = socket.read();
        (received, key)
    });
    (endpoint, handle)
}

fn engine(endpoint: String, timeout: Duration) -> AzureEngine {
    AzureEngine::new(AzureConfig::new(endpoint, KEY.to_owned(), timeout))
}

#[test]
fn a_whole_line_gives_audio_visemes_and_words_in_ms() {
    let (endpoint, server) = start(FakeAzure::Complete);
    let voice = Voice {
        gender: Gender::Male,
        ..Voice::default()
    };
    let u = engine(endpoint, Duration::from_secs(5))
        .synthesize("Bread & butter", &voice)
        .unwrap();
    let (received, key) = server.join().unwrap();
    assert_eq!(key.as_deref(), Some(KEY));
    assert!(received[0].contains("Path:speech.config"));
    assert!(
        received[1].contains("Path:synthesis.context")
            && received[1].contains("\"visemeEnabled\":true")
    );
    assert!(received[2].contains("Path:ssml") && received[2].contains("en-US-GuyNeural"));
    assert!(received[2].contains("Bread &amp; butter"));
    assert_eq!(u.sample_rate, SAMPLE_RATE);
    assert_eq!(u.pcm.len(), 2400);
    let expected: Vec<i16> = (0..2400).map(|i| ((i % 100) * 100 - 5000) as i16).collect();
    assert_eq!(u.pcm, expected);
    let visemes: Vec<(u8, f64)> = u
        .visemes
        .iter()
        .map(|v| (v.id.get(), v.offset_ms))
        .collect();
    assert_eq!(visemes, vec![(0, 0.0), (21, 50.0), (5, 120.0), (0, 250.0)]);
    assert_eq!(u.words.len(), 1);
    assert_eq!(u.words[0].text, "Bread");
    assert_eq!(
        (u.words[0].offset_ms, u.words[0].duration_ms),
        (50.0, 300.0)
    );
}

#[test]
fn a_connection_closed_mid_stream_is_a_clean_error() {
    let (endpoint, server) = start(FakeAzure::CloseMidStream);
    let err = engine(endpoint, Duration::from_secs(5))
        .synthesize("Hello there", &Voice::default())
        .expect_err("closed mid-stream");
    server.join().unwrap();
    assert!(matches!(err, SpeechError::Azure(_)), "{err:?}");
    assert!(
        err.to_string().contains("before the line was complete"),
        "{err}"
    );
}

#[test]
fn no_answer_times_out_and_a_refused_connection_says_so() {
    let (endpoint, server) = start(FakeAzure::Silent);
    let err = engine(endpoint, Duration::from_millis(300))
        .synthesize("Hello there", &Voice::default())
        .expect_err("silent server");
    assert!(err.to_string().contains("did not answer"), "{err}");
    server.join().unwrap();
    // A port nobody listens on.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = engine(format!("ws://127.0.0.1:{port}/v1"), Duration::from_secs(2))
        .synthesize("Hello", &Voice::default())
        .expect_err("refused");
    assert!(err.to_string().contains("refused"), "{err}");
}
