//! What a section other than a TFLite model holds, checked by its type (`docs/litertlm.md`
//! §8.3): a SentencePiece tokenizer is a `ModelProto` whose message fields are messages; the
//! metadata protos are protobuf messages at their top level; an HF tokenizer is a 64-bit size and
//! a zlib stream that inflates to exactly that size (inflated with the `zlib` feature). Errors
//! are located at the section and its type, `LiteRTLM.sections[6](SP_Tokenizer).pieces[3]`, at
//! the file offset of the byte at fault. Each message's fields are charged to the walk's budget,
//! one unit each, and each inflated 16 bytes one unit.

use super::proto::{Fields, Value, WireFault};
use super::{AnySectionDataType, Section, LITERTLM, SECTIONS};
use crate::container::{locate, Checked, Segment, Walk};
use crate::error::ErrorKind;
use crate::verify::{Fail, Name, Options};
use crate::wire::to_u64;

macro_rules! names {
    ($($id:ident = $s:literal),* $(,)?) => {$(static $id: &str = $s;)*};
}

names! {
    IN_SP_TOKENIZER = "(SP_Tokenizer)",
    IN_LLM_METADATA = "(LlmMetadataProto)",
    IN_HF_TOKENIZER = "(HF_Tokenizer_Zlib)",
    IN_EMBEDDING_METADATA = "(EmbeddingMetadataProto)",
    IN_EXECUTOR_METADATA = "(ExecutorMetadataProto)",
    IN_TTS_METADATA = "(TtsMetadataProto)",
    IN_ASR_METADATA = "(AsrMetadataProto)",
    UNCOMPRESSED_SIZE = "uncompressed_size",
    PIECES = "pieces",
    TRAINER_SPEC = "trainer_spec",
    NORMALIZER_SPEC = "normalizer_spec",
    SELF_TEST_DATA = "self_test_data",
    DENORMALIZER_SPEC = "denormalizer_spec",
}

/// The zlib stream of an HF tokenizer section, after its size.
#[cfg(feature = "zlib")]
static ZLIB: &str = "zlib";

/// SentencePiece's `ModelProto` fields 1 to 5, each a message (`pieces` repeated, the others
/// optional).
static SENTENCEPIECE_MESSAGES: [Name; 5] =
    [&PIECES, &TRAINER_SPEC, &NORMALIZER_SPEC, &SELF_TEST_DATA, &DENORMALIZER_SPEC];

/// Checks `section`'s contents by its type; types without a check of their own (NONE,
/// GenericBinaryData, Deprecated, TFLiteWeights, numbers the schema does not name) pass, and
/// TFLiteModel sections are the caller's.
pub(crate) fn check_contents(walk: &mut Walk<'_>, section: &Section<'_>, options: &Options) -> Checked {
    use AnySectionDataType as T;
    let message_in: Name = match section.data_type {
        T::SP_Tokenizer => return sentencepiece(walk, section),
        T::HF_Tokenizer_Zlib => return hf_tokenizer(walk, section, options),
        T::LlmMetadataProto => &IN_LLM_METADATA,
        T::EmbeddingMetadataProto => &IN_EMBEDDING_METADATA,
        T::ExecutorMetadataProto => &IN_EXECUTOR_METADATA,
        T::TtsMetadataProto => &IN_TTS_METADATA,
        T::AsrMetadataProto => &IN_ASR_METADATA,
        _ => return Ok(()),
    };
    match count_fields(section.bytes) {
        Ok(fields) => walk.charge(fields),
        Err((kind, at)) => Err(fail(walk, section, (message_in, None), kind, at)),
    }
}

/// A SentencePiece `ModelProto`: its fields, and the contents of each of its message fields
/// (1 to 5, length-delimited) as a message; deeper messages are not walked.
fn sentencepiece(walk: &mut Walk<'_>, section: &Section<'_>) -> Checked {
    let mut fields = Fields::new(section.bytes);
    let (mut count, mut pieces) = (0usize, 0usize);
    loop {
        let field = match fields.next_field() {
            Ok(Some(field)) => field,
            Ok(None) => return walk.charge(count),
            Err((kind, at)) => return Err(fail(walk, section, (&IN_SP_TOKENIZER, None), kind, at)),
        };
        count = count.saturating_add(1);
        let slot = usize::try_from(field.number).ok().and_then(|n| n.checked_sub(1));
        let (Value::Bytes(inner, start), Some(&name)) = (field.value, slot.and_then(|s| SENTENCEPIECE_MESSAGES.get(s)))
        else {
            continue;
        };
        let index = (field.number == 1).then_some(pieces);
        if field.number == 1 {
            pieces = pieces.saturating_add(1);
        }
        match count_fields(inner) {
            Ok(n) => count = count.saturating_add(n),
            Err((kind, at)) => {
                let inner = [(&IN_SP_TOKENIZER, None), (name, index)];
                return Err(fail_in(walk, section, &inner, kind, start.saturating_add(at)));
            }
        }
    }
}

/// The fields of the message `bytes` are well formed and fill it: how many there are.
fn count_fields(bytes: &[u8]) -> Result<usize, WireFault> {
    let mut fields = Fields::new(bytes);
    let mut count = 0usize;
    while fields.next_field()?.is_some() {
        count = count.saturating_add(1);
    }
    Ok(count)
}

/// An HF tokenizer: the `u64` size its JSON inflates to, at most the options' cap, then a zlib
/// stream inflating to exactly that (with the `zlib` feature; without it the stream is not read).
fn hf_tokenizer(walk: &mut Walk<'_>, section: &Section<'_>, options: &Options) -> Checked {
    let size_field = (&IN_HF_TOKENIZER, Some((&UNCOMPRESSED_SIZE, None)));
    let Some((size, stream)) = section.bytes.split_first_chunk::<8>() else {
        return Err(fail(walk, section, size_field, ErrorKind::Truncated, section.bytes.len()));
    };
    let declared = u64::from_le_bytes(*size);
    if declared > options.max_inflated_size {
        return Err(fail(walk, section, size_field, ErrorKind::InflatedSizeLimit, 0));
    }
    #[cfg(feature = "zlib")]
    {
        use super::zlib::{inflate_to, Refusal};
        let refusal = match inflate_to(stream, declared, |units| walk.charge(units)) {
            Ok(()) => return Ok(()),
            Err(refusal) => refusal,
        };
        let (field, kind, at) = match refusal {
            Refusal::Spent => return Err(Fail),
            Refusal::Size(kind) => (size_field, kind, 0),
            Refusal::At(kind, at) => ((&IN_HF_TOKENIZER, Some((&ZLIB, None))), kind, at.saturating_add(8)),
        };
        Err(fail(walk, section, field, kind, at))
    }
    #[cfg(not(feature = "zlib"))]
    {
        let _ = stream;
        Ok(())
    }
}

/// [`fail_in`] at the section's qualifier and, if given, one field below it.
#[cold]
fn fail(
    walk: &mut Walk<'_>,
    section: &Section<'_>,
    (qualifier, field): (Name, Option<Segment>),
    kind: ErrorKind,
    at: usize,
) -> Fail {
    match field {
        Some(field) => fail_in(walk, section, &[(qualifier, None), field], kind, at),
        None => fail_in(walk, section, &[(qualifier, None)], kind, at),
    }
}

/// Fails with an error of `kind` at `LiteRTLM.sections[i]<inner>`, at the file offset of the
/// section's byte `at`.
#[cold]
#[inline(never)]
fn fail_in(walk: &mut Walk<'_>, section: &Section<'_>, inner: &[Segment], kind: ErrorKind, at: usize) -> Fail {
    let offset = section.begin.saturating_add(to_u64(at));
    let fail = locate(walk.error(), kind, offset, &LITERTLM, inner);
    walk.error().location_mut().push_outer(&SECTIONS, u32::try_from(section.index).ok());
    fail
}
