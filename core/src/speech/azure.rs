//! Azure Speech over its websocket protocol: SSML in, audio chunks and viseme / word events
//! out (offsets in 100-ns ticks, turned into ms here). The key and region come from the
//! environment only (`AZURE_SPEECH_KEY`, optionally `AZURE_SPEECH_REGION` over the project's
//! region); the key is never written to a project file or a log.
//!
//! Errors (no key, refused connection, no answer within the timeout, a connection closed before
//! the line was complete) are [`SpeechError::Azure`]; the runtime then speaks the line offline.

use std::fmt;
use std::io::ErrorKind;
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tungstenite::client::IntoClientRequest;
use tungstenite::http::HeaderValue;
use tungstenite::{Message, WebSocket};

use super::{SpeechChunk, SpeechEngine, SpeechError, WordTiming};
use crate::anim::lipsync::VisemeEvent;
use crate::project::{Gender, Voice};
use crate::viseme::VisemeId;

/// The environment variable holding the subscription key.
pub const KEY_VAR: &str = "AZURE_SPEECH_KEY";
/// The environment variable that overrides the project's region.
pub const REGION_VAR: &str = "AZURE_SPEECH_REGION";
/// The environment variable naming another endpoint than the region's: an Azure Speech
/// container on the user's own machine (`ws://localhost:5000/cognitiveservices/websocket/v1`)
/// or a sovereign cloud's.
pub const ENDPOINT_VAR: &str = "AZURE_SPEECH_ENDPOINT";
/// Audio asked for: raw 16-bit mono PCM at 24 kHz.
pub const SAMPLE_RATE: u32 = 24_000;
/// 100-ns ticks per millisecond.
const TICKS_PER_MS: f64 = 10_000.0;

/// Where and how to reach the service.
#[derive(Clone)]
pub struct AzureConfig {
    /// `wss://{region}.tts.speech.microsoft.com/cognitiveservices/websocket/v1`, or a local
    /// address in tests.
    pub endpoint: String,
    key: String,
    /// For connecting and for each wait for an answer.
    pub timeout: Duration,
}

impl fmt::Debug for AzureConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AzureConfig")
            .field("endpoint", &self.endpoint)
            .field("key", &"(hidden)")
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl AzureConfig {
    /// A configuration for `endpoint` with `key`.
    #[must_use]
    pub fn new(endpoint: String, key: String, timeout: Duration) -> Self {
        Self {
            endpoint,
            key,
            timeout,
        }
    }

    /// The service endpoint of a region.
    #[must_use]
    pub fn endpoint_for(region: &str) -> String {
        format!("wss://{region}.tts.speech.microsoft.com/cognitiveservices/websocket/v1")
    }

    /// From the environment (read through `var`): the key from [`KEY_VAR`], the region from
    /// [`REGION_VAR`] or else `region`, the endpoint from [`ENDPOINT_VAR`] or else the
    /// region's.
    pub fn from_lookup(
        region: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, SpeechError> {
        let key = var(KEY_VAR)
            .filter(|k| !k.trim().is_empty())
            .ok_or_else(|| {
                SpeechError::Azure(format!(
                    "no Azure key: set {KEY_VAR} in the environment (the key is never read from \
                     the project file)"
                ))
            })?;
        let region = var(REGION_VAR)
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| region.to_owned());
        if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(SpeechError::Azure(format!(
                "the Azure region {region:?} is not a region name (e.g. westeurope)"
            )));
        }
        let endpoint = match var(ENDPOINT_VAR).filter(|e| !e.trim().is_empty()) {
            Some(e) if e.starts_with("ws://") || e.starts_with("wss://") => e.trim().to_owned(),
            Some(e) => {
                return Err(SpeechError::Azure(format!(
                    "{ENDPOINT_VAR} {e:?} is not a websocket address (ws://... or wss://...)"
                )));
            }
            None => Self::endpoint_for(&region),
        };
        Ok(Self::new(
            endpoint,
            key.trim().to_owned(),
            Duration::from_secs(10),
        ))
    }

    /// From the process environment.
    pub fn from_env(region: &str) -> Result<Self, SpeechError> {
        Self::from_lookup(region, |k| std::env::var(k).ok())
    }
}

/// The Azure engine.
#[derive(Debug, Clone)]
pub struct AzureEngine {
    config: AzureConfig,
}

/// The neural voice for a voice without a name.
#[must_use]
pub fn default_voice(voice: &Voice) -> String {
    if let Some(name) = &voice.name {
        return name.clone();
    }
    match voice.gender {
        Gender::Female => "en-US-JennyNeural".to_owned(),
        Gender::Male => "en-US-GuyNeural".to_owned(),
    }
}

fn xml_escape(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".to_owned(),
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '"' => "&quot;".to_owned(),
            '\'' => "&apos;".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// The SSML of a line.
#[must_use]
pub fn ssml(text: &str, voice: &Voice) -> String {
    let lang = xml_escape(&voice.language);
    format!(
        "<speak version='1.0' xmlns='http://www.w3.org/2001/10/synthesis' \
         xmlns:mstts='http://www.w3.org/2001/mstts' xml:lang='{lang}'><voice name='{}'>\
         <mstts:viseme type='redlips_front'/>{}</voice></speak>",
        xml_escape(&default_voice(voice)),
        xml_escape(text)
    )
}

fn request_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:032x}")
}

fn timestamp() -> String {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("{ms}")
}

/// A text message of the protocol: headers, a blank line, the body.
fn text_message(path: &str, request: &str, content_type: &str, body: &str) -> String {
    format!(
        "X-Timestamp:{}\r\nX-RequestId:{request}\r\nPath:{path}\r\nContent-Type:{content_type}\r\n\r\n{body}",
        timestamp()
    )
}

/// `Path:` of a message's headers.
fn header_path(headers: &str) -> Option<&str> {
    headers.lines().find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("path")
            .then(|| value.trim())
    })
}

fn io_error(e: &std::io::Error, timeout: Duration) -> SpeechError {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => SpeechError::Azure(format!(
            "Azure did not answer within {} s",
            timeout.as_secs_f64()
        )),
        ErrorKind::ConnectionRefused => {
            SpeechError::Azure("the Azure endpoint refused the connection".to_owned())
        }
        _ => SpeechError::Azure(format!("cannot reach Azure: {e}")),
    }
}

fn ws_error(e: tungstenite::Error, timeout: Duration) -> SpeechError {
    match e {
        tungstenite::Error::Io(io) => io_error(&io, timeout),
        tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed => {
            SpeechError::Azure("the connection closed before the line was complete".to_owned())
        }
        tungstenite::Error::Protocol(p) => SpeechError::Azure(format!(
            "the connection broke before the line was complete ({p})"
        )),
        tungstenite::Error::Http(r) => SpeechError::Azure(format!(
            "Azure refused the request: HTTP {} (check {KEY_VAR} and the region)",
            r.status()
        )),
        other => SpeechError::Azure(format!("websocket error: {other}")),
    }
}

/// What a stream of messages has given so far.
#[derive(Debug, Default)]
struct Turn {
    started: bool,
    /// A byte of audio left over from an odd-length chunk.
    carry: Option<u8>,
    last_viseme_ms: f64,
}

impl Turn {
    /// Handles one message; returns true at the end of the turn.
    fn message(
        &mut self,
        message: Message,
        sink: &mut dyn FnMut(SpeechChunk),
    ) -> Result<bool, SpeechError> {
        match message {
            Message::Text(text) => {
                let (headers, body) = text.split_once("\r\n\r\n").unwrap_or((text.as_str(), ""));
                match header_path(headers) {
                    Some("turn.end") => return Ok(true),
                    Some("audio.metadata") => self.metadata(body, sink)?,
                    _ => {}
                }
            }
            Message::Binary(bytes) => {
                if bytes.len() < 2 {
                    return Ok(false);
                }
                let header_len = usize::from(u16::from_be_bytes([bytes[0], bytes[1]]));
                let Some(headers) = bytes.get(2..2 + header_len) else {
                    return Err(SpeechError::Azure(
                        "an audio message is cut short".to_owned(),
                    ));
                };
                let headers = String::from_utf8_lossy(headers);
                if header_path(&headers) != Some("audio") {
                    return Ok(false);
                }
                self.start(sink);
                let mut data: Vec<u8> = self.carry.take().into_iter().collect();
                data.extend_from_slice(&bytes[2 + header_len..]);
                if data.len() % 2 == 1 {
                    self.carry = data.pop();
                }
                let samples: Vec<i16> = data
                    .chunks_exact(2)
                    .map(|b| i16::from_le_bytes([b[0], b[1]]))
                    .collect();
                if !samples.is_empty() {
                    sink(SpeechChunk::Audio(samples));
                }
            }
            Message::Close(_) => {
                return Err(SpeechError::Azure(
                    "the connection closed before the line was complete".to_owned(),
                ));
            }
            _ => {}
        }
        Ok(false)
    }

    fn start(&mut self, sink: &mut dyn FnMut(SpeechChunk)) {
        if !self.started {
            self.started = true;
            sink(SpeechChunk::Start {
                sample_rate: SAMPLE_RATE,
            });
        }
    }

    /// Viseme and word events.
    fn metadata(
        &mut self,
        body: &str,
        sink: &mut dyn FnMut(SpeechChunk),
    ) -> Result<(), SpeechError> {
        let value: Value = serde_json::from_str(body).map_err(|e| {
            SpeechError::Azure(format!("Azure sent metadata that is not JSON: {e}"))
        })?;
        self.start(sink);
        for item in value["Metadata"].as_array().into_iter().flatten() {
            let data = &item["Data"];
            let offset_ms = data["Offset"].as_f64().unwrap_or(0.0) / TICKS_PER_MS;
            match item["Type"].as_str() {
                Some("Viseme") => {
                    let id = data["VisemeId"]
                        .as_u64()
                        .and_then(|v| u32::try_from(v).ok())
                        .and_then(|v| VisemeId::new(v).ok());
                    let Some(id) = id else {
                        tracing::warn!(
                            "Azure sent a viseme id that is not 0-21: {}",
                            data["VisemeId"]
                        );
                        continue;
                    };
                    // Events must not go back in time; a late one is held at the last offset.
                    let at = offset_ms.max(self.last_viseme_ms);
                    self.last_viseme_ms = at;
                    sink(SpeechChunk::Viseme(VisemeEvent::new(id, at)));
                }
                Some("WordBoundary") => sink(SpeechChunk::Word(WordTiming {
                    text: data["text"]["Text"].as_str().unwrap_or_default().to_owned(),
                    offset_ms,
                    duration_ms: data["Duration"].as_f64().unwrap_or(0.0) / TICKS_PER_MS,
                })),
                _ => {}
            }
        }
        Ok(())
    }
}

impl AzureEngine {
    #[must_use]
    pub fn new(config: AzureConfig) -> Self {
        Self { config }
    }

    fn connect(
        &self,
    ) -> Result<WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>, SpeechError> {
        let timeout = self.config.timeout;
        let mut request = self
            .config
            .endpoint
            .as_str()
            .into_client_request()
            .map_err(|e| SpeechError::Azure(format!("bad Azure endpoint: {e}")))?;
        let uri = request.uri().clone();
        let host = uri.host().unwrap_or_default().to_owned();
        let port = uri.port_u16().unwrap_or(if uri.scheme_str() == Some("ws") {
            80
        } else {
            443
        });
        let key = HeaderValue::from_str(&self.config.key).map_err(|_| {
            SpeechError::Azure(format!("{KEY_VAR} holds characters a key cannot have"))
        })?;
        let headers = request.headers_mut();
        headers.insert("Ocp-Apim-Subscription-Key", key);
        if let Ok(id) = HeaderValue::from_str(&request_id()) {
            headers.insert("X-ConnectionId", id);
        }
        let addr = (host.as_str(), port)
            .to_socket_addrs()
            .map_err(|e| SpeechError::Azure(format!("cannot resolve {host}: {e}")))?
            .next()
            .ok_or_else(|| SpeechError::Azure(format!("{host} has no address")))?;
        let stream =
            TcpStream::connect_timeout(&addr, timeout).map_err(|e| io_error(&e, timeout))?;
        stream
            .set_read_timeout(Some(timeout))
            .and_then(|()| stream.set_write_timeout(Some(timeout)))
            .map_err(|e| io_error(&e, timeout))?;
        let (socket, _) = tungstenite::client_tls_with_config(request, stream, None, None)
            .map_err(|e| match e {
                tungstenite::HandshakeError::Failure(e) => ws_error(e, timeout),
                tungstenite::HandshakeError::Interrupted(_) => SpeechError::Azure(format!(
                    "Azure did not complete the handshake within {} s",
                    timeout.as_secs_f64()
                )),
            })?;
        Ok(socket)
    }
}

impl SpeechEngine for AzureEngine {
    fn synthesize_streaming(
        &self,
        text: &str,
        voice: &Voice,
        sink: &mut dyn FnMut(SpeechChunk),
    ) -> Result<(), SpeechError> {
        if text.trim().is_empty() {
            return Err(SpeechError::EmptyText);
        }
        let timeout = self.config.timeout;
        let mut socket = self.connect()?;
        let request = request_id();
        let config = json!({"context": {"system": {"name": "SpeechSDK", "version": "1.0",
            "build": "Rust", "lang": "Rust"}, "os": {"platform": "Linux", "name": "Linux",
            "version": ""}}});
        let context = json!({"synthesis": {"audio": {"metadataOptions": {"visemeEnabled": true,
            "wordBoundaryEnabled": true, "sentenceBoundaryEnabled": false,
            "bookmarkEnabled": false}, "outputFormat": "raw-24khz-16bit-mono-pcm"},
            "language": {"autoDetection": false}}});
        for (path, content_type, body) in [
            ("speech.config", "application/json", config.to_string()),
            ("synthesis.context", "application/json", context.to_string()),
            ("ssml", "application/ssml+xml", ssml(text, voice)),
        ] {
            socket
                .send(Message::text(text_message(
                    path,
                    &request,
                    content_type,
                    &body,
                )))
                .map_err(|e| ws_error(e, timeout))?;
        }
        let mut turn = Turn::default();
        loop {
            let message = socket.read().map_err(|e| ws_error(e, timeout))?;
            if turn.message(message, sink)? {
                break;
            }
        }
        if !turn.started {
            return Err(SpeechError::Azure(
                "Azure ended the turn without audio".to_owned(),
            ));
        }
        let _ = socket.close(None);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_comes_from_the_environment_and_is_never_shown() {
        let env = |k: &str| match k {
            KEY_VAR => Some("secret-key-123".to_owned()),
            _ => None,
        };
        let c = AzureConfig::from_lookup("westeurope", env).expect("config");
        assert_eq!(
            c.endpoint,
            "wss://westeurope.tts.speech.microsoft.com/cognitiveservices/websocket/v1"
        );
        assert!(!format!("{c:?}").contains("secret"));
        let missing = AzureConfig::from_lookup("westeurope", |_| None).expect_err("no key");
        assert!(missing.to_string().contains(KEY_VAR), "{missing}");
        let region = |k: &str| match k {
            KEY_VAR => Some("k".to_owned()),
            REGION_VAR => Some("eastus".to_owned()),
            _ => None,
        };
        assert!(
            AzureConfig::from_lookup("westeurope", region)
                .expect("config")
                .endpoint
                .contains("eastus")
        );
        let bad = AzureConfig::from_lookup("west europe/../x", env).expect_err("bad region");
        assert!(bad.to_string().contains("region"), "{bad}");
        let container = |endpoint: &'static str| {
            move |k: &str| match k {
                KEY_VAR => Some("k".to_owned()),
                ENDPOINT_VAR => Some(endpoint.to_owned()),
                _ => None,
            }
        };
        let local = "ws://localhost:5000/cognitiveservices/websocket/v1";
        assert_eq!(
            AzureConfig::from_lookup("westeurope", container(local))
                .expect("config")
                .endpoint,
            local
        );
        let wrong = AzureConfig::from_lookup("westeurope", container("http://localhost:5000"))
            .expect_err("not a websocket");
        assert!(wrong.to_string().contains(ENDPOINT_VAR), "{wrong}");
    }

    #[test]
    fn ssml_escapes_the_text_and_names_the_voice_for_the_gender() {
        let male = Voice {
            gender: Gender::Male,
            ..Voice::default()
        };
        let s = ssml("Fish & <chips>", &male);
        assert!(s.contains("en-US-GuyNeural"));
        assert!(s.contains("Fish &amp; &lt;chips&gt;"));
        assert!(ssml("x", &Voice::default()).contains("en-US-JennyNeural"));
    }
}
