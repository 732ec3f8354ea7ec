#include "report/json_cursor.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace railyard {

namespace {

constexpr int kMaxDepth = 256;

// Bytes that end the fast scan through a string: the closing quote, an escape, a control.
constexpr std::array<bool, 256> kStringStop = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  t['"'] = t['\\'] = true;
  return t;
}();

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Most of a report is indentation and string contents, so these scans are where a fleet
// summary spends its time: eight bytes at a time for runs of spaces, sixteen with the
// compiler's vector extensions (SSE2 on x86-64, NEON on arm64) for the rest. The byte
// offsets below count from the low end of a word.
static_assert(std::endian::native == std::endian::little, "the scans count bytes from the low end");
constexpr std::uint64_t kSpaces = 0x2020202020202020ULL;

std::uint64_t load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

using Bytes16 = unsigned char __attribute__((vector_size(16)));

// The offset of the first byte flagged (0xff) in `hit`, or 16.
int first_hit(Bytes16 hit) {
  std::uint64_t lo, hi;
  std::memcpy(&lo, &hit, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&hit) + 8, 8);
  if (lo) return std::countr_zero(lo) >> 3;
  if (hi) return 8 + (std::countr_zero(hi) >> 3);
  return 16;
}

// One bit per byte of a 16-byte comparison (byte 0 is bit 0): the bytes' high bits, by
// SSE2's movemask, or elsewhere gathered by a multiplication that moves bit 8j+7 to bit 56+j
// without carries.
std::uint64_t bits_of(Bytes16 hit) {
#if defined(__SSE2__)
  return static_cast<std::uint16_t>(_mm_movemask_epi8(reinterpret_cast<__m128i>(hit)));
#else
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL, kGather = 0x0002040810204081ULL;
  std::uint64_t lo, hi;
  std::memcpy(&lo, &hit, 8);
  std::memcpy(&hi, reinterpret_cast<const char*>(&hit) + 8, 8);
  return (((lo & kHigh) * kGather) >> 56) | ((((hi & kHigh) * kGather) >> 56) << 8);
#endif
}

// Where the quotes and brackets are in 64 bytes at p, and the bytes that need the byte-wise
// path when inside a string: a backslash (an escape) or a control character.
struct BlockMasks {
  std::uint64_t quote = 0, bracket = 0, special = 0;
};

BlockMasks block_masks(const char* p) {
  BlockMasks m;
  for (int i = 0; i < 4; ++i) {
    Bytes16 v;
    std::memcpy(&v, p + 16 * i, 16);
    Bytes16 folded = v | 0x20;  // '[' and ']' become '{' and '}'
    m.quote |= bits_of(v == '"') << (16 * i);
    m.bracket |= bits_of((folded == '{') | (folded == '}')) << (16 * i);
    m.special |= bits_of((v == '\\') | (v < 0x20)) << (16 * i);
  }
  return m;
}

// Bit i set when an odd number of bits up to and including i are set in x: with the quotes'
// bits, the bytes from an opening quote up to (not including) its closing one.
std::uint64_t prefix_xor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The first byte in [p, end) that is one of `chars`, or end.
template <char... chars>
const char* find_first_of(const char* p, const char* end) {
  for (; end - p >= 16; p += 16) {
    Bytes16 v;
    std::memcpy(&v, p, 16);
    if (int i = first_hit(((v == static_cast<unsigned char>(chars)) | ...)); i < 16) return p + i;
  }
  while (p < end && ((*p != chars) && ...)) ++p;
  return p;
}

// Where a run of plain string contents ends: a quote, a backslash or a control character.
const char* string_stop(const char* p, const char* end) {
  for (; end - p >= 16; p += 16) {
    Bytes16 v;
    std::memcpy(&v, p, 16);
    if (int i = first_hit((v == '"') | (v == '\\') | (v < 0x20)); i < 16) return p + i;
  }
  while (p < end && !kStringStop[static_cast<unsigned char>(*p)]) ++p;
  return p;
}

[[gnu::cold]] std::string too_deep() { return "nested deeper than " + std::to_string(kMaxDepth) + " levels"; }

[[gnu::cold]] std::string mismatched(char close, char open) {
  return std::string("'") + close + "' closes a '" + open + "'";
}

}  // namespace

bool JsonCursor::fail(const std::string& what) { return fail_at(offset(), what); }

bool JsonCursor::fail_at(std::size_t offset, const std::string& what) {
  if (!error_.empty()) return false;
  const char* at = begin_ + std::min(offset, static_cast<std::size_t>(end_ - begin_));
  int line = 1;
  const char* line_start = begin_;
  for (const char* q = begin_; q < at; ++q)
    if (*q == '\n') ++line, line_start = q + 1;
  error_ = "line " + std::to_string(line) + ", column " + std::to_string(at - line_start + 1) + ": " + what;
  return false;
}

void JsonCursor::skip_ws_run() {
  for (;;) {
    // Pretty-printed JSON: a line break, then the indentation.
    while (p_ < end_ && (*p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    while (end_ - p_ >= 8) {
      std::uint64_t other = load8(p_) ^ kSpaces;
      if (other) {
        p_ += std::countr_zero(other) >> 3;  // to the first byte that is not a space
        break;
      }
      p_ += 8;
    }
    if (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    else return;
  }
}

bool JsonCursor::expect_after_ws(char c, const char* what) {
  skip_ws();
  if (p_ == end_ || *p_ != c) return fail(p_ == end_ ? std::string("unexpected end of input, expected ") + what
                                                     : std::string("expected ") + what);
  ++p_;
  return true;
}

JsonCursor::Kind JsonCursor::peek() {
  if (failed()) return Kind::invalid;
  skip_ws();
  if (p_ == end_) return Kind::end;
  switch (*p_) {
    case '{': return Kind::object;
    case '[': return Kind::array;
    case '"': return Kind::string;
    case 't':
    case 'f': return Kind::boolean;
    case 'n': return Kind::null;
    default: return *p_ == '-' || is_digit(*p_) ? Kind::number : Kind::invalid;
  }
}

bool JsonCursor::begin_object() {
  if (failed() || !expect('{', "an object")) return false;
  first_.push_back(1);
  return true;
}

bool JsonCursor::begin_array() {
  if (failed() || !expect('[', "an array")) return false;
  first_.push_back(1);
  return true;
}

bool JsonCursor::next_key(std::string_view& key) {
  if (failed() || first_.empty()) return false;
  skip_ws();
  if (p_ == end_) return fail("unexpected end of input, expected '}'");
  if (*p_ == '}') {
    ++p_;
    first_.pop_back();
    return false;
  }
  if (!first_.back() && !expect(',', "',' or '}'")) return false;
  first_.back() = 0;
  skip_ws();
  if (p_ == end_ || *p_ != '"') return fail("expected a key (a string)");
  const char* start = p_ + 1;
  const char* stop = string_stop(start, end_);
  if (stop < end_ && *stop == '"') {  // no escapes: the key is the text itself
    key = std::string_view(start, static_cast<std::size_t>(stop - start));
    p_ = stop + 1;
  } else {
    key_.clear();
    if (!scan_string(&key_)) return false;
    key = key_;
  }
  return expect(':', "':' after the key");
}

bool JsonCursor::next_element() {
  if (failed() || first_.empty()) return false;
  skip_ws();
  if (p_ == end_) return fail("unexpected end of input, expected ']'");
  if (*p_ == ']') {
    ++p_;
    first_.pop_back();
    return false;
  }
  if (!first_.back() && !expect(',', "',' or ']'")) return false;
  first_.back() = 0;
  return true;
}

bool JsonCursor::read_string(std::string& out) {
  if (failed()) return false;
  skip_ws();
  if (p_ == end_ || *p_ != '"') return fail("expected a string");
  out.clear();
  return scan_string(&out);
}

bool JsonCursor::read_number(double& out) {
  if (failed()) return false;
  skip_ws();
  return scan_number(&out);
}

bool JsonCursor::read_bool(bool& out) {
  if (failed()) return false;
  skip_ws();
  if (p_ < end_ && *p_ == 't') return (out = true, scan_literal("true"));
  if (p_ < end_ && *p_ == 'f') return (out = false, scan_literal("false"));
  return fail("expected true or false");
}

bool JsonCursor::skip_value() { return !failed() && skip(static_cast<int>(first_.size())); }

bool JsonCursor::skip_balanced() {
  if (failed()) return false;
  skip_ws();
  if (p_ == end_ || (*p_ != '{' && *p_ != '[')) return skip_value();  // a scalar: cheap to check whole
  char open[kMaxDepth];
  int depth = 0;
  const int outer = static_cast<int>(first_.size());
  // A bracket at `at`: 1 when it closes the value, 0 to go on, -1 on error.
  auto bracket = [&](const char* at) {
    p_ = at;
    char c = *at;
    if (c == '{' || c == '[') {
      if (depth + outer >= kMaxDepth) return fail(too_deep()), -1;
      open[depth++] = c;
    } else if (open[depth - 1] != (c == '}' ? '{' : '[')) {
      return fail(mismatched(c, open[depth - 1])), -1;
    } else if (--depth == 0) {
      p_ = at + 1;
      return 1;
    }
    return 0;
  };
  // The opening quote of a string that runs on past the blocks read so far.
  const char* string_start = nullptr;
  for (;;) {
    // Sixty-four bytes at a time while no string in them holds an escape or a control
    // character; those, and the last bytes, take the byte-wise path below. (A backslash
    // outside a string is not JSON, and among what is not checked here.)
    if (end_ - p_ >= 64) {
      const char* block = p_;
      BlockMasks m = block_masks(block);
      std::uint64_t in_string = prefix_xor(m.quote) ^ (string_start ? ~std::uint64_t{0} : 0);
      if ((m.special & in_string) == 0) {
        for (std::uint64_t b = m.bracket & ~in_string; b; b &= b - 1)
          if (int r = bracket(block + std::countr_zero(b)); r != 0) return r > 0;
        if (!(in_string >> 63)) string_start = nullptr;
        else if (m.quote) string_start = block + (63 - std::countl_zero(m.quote));  // the last quote opened it
        p_ = block + 64;
        continue;
      }
    }
    if (string_start) {  // back to the string's start, outside it, for the byte-wise path
      p_ = string_start;
      string_start = nullptr;
      if (!scan_string(nullptr)) return false;
      continue;
    }
    p_ = find_first_of<'"', '{', '}', '[', ']'>(p_, end_);
    if (p_ == end_) return fail("unexpected end of input inside an object or array");
    if (*p_ == '"') {
      if (!scan_string(nullptr)) return false;
    } else if (int r = bracket(p_); r != 0) {
      return r > 0;
    } else {
      ++p_;
    }
  }
}

bool JsonCursor::finish() {
  if (failed()) return false;
  skip_ws();
  return p_ == end_ || fail("unexpected text after the JSON value");
}

bool JsonCursor::scan_string(std::string* out) {
  ++p_;  // the opening quote
  for (;;) {
    const char* run = p_;
    p_ = string_stop(p_, end_);
    if (out) out->append(run, p_);
    if (p_ == end_) return fail("unterminated string");
    char c = *p_;
    if (c == '"') {
      ++p_;
      return true;
    }
    if (c != '\\') return fail("control character in a string (must be escaped)");
    if (end_ - p_ < 2) return fail("unterminated string");
    char e = p_[1];
    p_ += 2;
    const char* simple = "\"\\/bfnrt";
    const char* decoded = "\"\\/\b\f\n\r\t";
    bool found = false;
    for (int i = 0; simple[i]; ++i)
      if (e == simple[i]) {
        if (out) *out += decoded[i];
        found = true;
      }
    if (found) continue;
    if (e != 'u') return (p_ -= 2, fail(std::string("invalid escape '\\") + e + "'"));
    auto read_hex4 = [&](unsigned& v) {
      if (end_ - p_ < 4) return false;
      v = 0;
      for (int i = 0; i < 4; ++i) {
        int d = hex_digit(p_[i]);
        if (d < 0) return false;
        v = v * 16 + static_cast<unsigned>(d);
      }
      p_ += 4;
      return true;
    };
    unsigned cp = 0;
    if (!read_hex4(cp)) return fail("\\u must be followed by four hex digits");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      unsigned low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u' || (p_ += 2, !read_hex4(low)) || low < 0xDC00 || low > 0xDFFF)
        return fail("a high surrogate must be followed by a low surrogate (\\uDC00-\\uDFFF)");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return fail("a low surrogate without a high one");
    }
    if (out) append_utf8(*out, cp);
  }
}

bool JsonCursor::scan_number(double* out) {
  const char* start = p_;
  if (p_ < end_ && *p_ == '-') ++p_;
  if (p_ < end_ && *p_ == '0') {
    ++p_;
  } else if (p_ < end_ && is_digit(*p_)) {
    while (p_ < end_ && is_digit(*p_)) ++p_;
  } else {
    p_ = start;
    return fail("expected a number");
  }
  if (p_ < end_ && *p_ == '.') {
    ++p_;
    if (p_ == end_ || !is_digit(*p_)) return fail("a digit must follow the decimal point");
    while (p_ < end_ && is_digit(*p_)) ++p_;
  }
  if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
    ++p_;
    if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
    if (p_ == end_ || !is_digit(*p_)) return fail("a digit must follow the exponent");
    while (p_ < end_ && is_digit(*p_)) ++p_;
  }
  if (out) {
    auto [ptr, ec] = std::from_chars(start, p_, *out);
    if (ec != std::errc() || ptr != p_) return (p_ = start, fail("number out of range"));
  }
  return true;
}

bool JsonCursor::scan_literal(std::string_view word) {
  if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word)
    return fail("invalid literal (expected true, false or null)");
  p_ += word.size();
  return true;
}

bool JsonCursor::skip(int depth) {
  if (depth > kMaxDepth) return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
  skip_ws();
  if (p_ == end_) return fail("unexpected end of input, expected a value");
  switch (*p_) {
    case '{': {
      ++p_;
      skip_ws();
      if (p_ < end_ && *p_ == '}') return ++p_, true;
      for (;;) {
        skip_ws();
        if (p_ == end_ || *p_ != '"') return fail(p_ == end_ ? "unexpected end of input, expected a key" : "expected a key (a string)");
        if (!scan_string(nullptr) || !expect(':', "':' after the key") || !skip(depth + 1)) return false;
        skip_ws();
        if (p_ == end_) return fail("unexpected end of input, expected ',' or '}'");
        if (*p_ == '}') return ++p_, true;
        if (*p_ != ',') return fail("expected ',' or '}'");
        ++p_;
      }
    }
    case '[': {
      ++p_;
      skip_ws();
      if (p_ < end_ && *p_ == ']') return ++p_, true;
      for (;;) {
        if (!skip(depth + 1)) return false;
        skip_ws();
        if (p_ == end_) return fail("unexpected end of input, expected ',' or ']'");
        if (*p_ == ']') return ++p_, true;
        if (*p_ != ',') return fail("expected ',' or ']'");
        ++p_;
      }
    }
    case '"': return scan_string(nullptr);
    case 't': return scan_literal("true");
    case 'f': return scan_literal("false");
    case 'n': return scan_literal("null");
    default: return *p_ == '-' || is_digit(*p_) ? scan_number(nullptr) : fail("expected a value");
  }
}

}  // namespace railyard
