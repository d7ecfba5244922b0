/*
 * storage/_append.c -- Log.append's common case, compiled (optional).
 *
 * The reference is Python: Log.append (log.py), LogSegment.append (segment.py),
 * OffsetIndex.append (offset_index.py) and TimeIndex.maybe_append (time_index.py). Read
 * those to learn what an append does. This file does the same thing for ONE case, the
 * one a broker meets on nearly every produce request, without the interpreter's
 * per-operation cost:
 *
 *     a leader's append (offsets assigned) of exactly one batch, from a writable
 *     buffer, on a CreateTime topic, with no producer id, to an active segment that
 *     already holds data, needs no roll, no flush and has no deletions due.
 *
 * In every other case -- and whenever a check fails, the batch is bad, or anything is not
 * as this file expects -- append_batch() returns None having changed nothing (not the
 * buffer, not a file, not an attribute) and Log.append goes on with the Python code,
 * which raises the right error or does the rarer work. So this file holds no error
 * messages and no policy of its own: each decision below names the Python line it
 * mirrors. tests/storage/test_compiled_append.py runs the same appends through both and
 * compares the results, the files and every attribute touched.
 *
 * Why it exists. Issue 3 asks appends of 16 KiB batches to reach 0.8x the throughput of
 * plain os.write of the same bytes. The write costs ~6 us here; the Python append adds
 * ~5.5 us (validation ~1.1, stamping and the write call ~0.4, index entries, roll
 * checks and the result ~4), and validation + stamp + pwrite alone, from Python, reach
 * only ~0.8x. This path adds ~1.5 us: the CRC-32C (protocol/crc32c.py's function, called
 * once: ~0.5 us with the call), and reading and setting the fields below, the new ints,
 * the in-memory index copy's three array appends and the AppendInfo.
 *
 * Fields, not attributes. The classes declare their fields as __slots__, so a field of an
 * instance sits at a fixed offset in the object, as in a C struct; bind() finds each
 * offset once from the slot's descriptor, and checks that every object is of exactly the
 * bound class before reading one. (An attribute lookup costs ~20 ns; an append needs
 * ~35 fields.) The fields read and set (names as in the Python classes):
 *
 *   Log            _closed _pending_deletes _roll_bounds config _log_end_offset
 *                  _recovery_point _log_start_offset _active _producer_state
 *                  sets _last_now_ms, _log_end_offset
 *   LogConfig      segment_bytes max_message_bytes flush_messages message_timestamp_type
 *   LogSegment     _size_bytes _fd base_offset index_interval_bytes
 *                  _bytes_since_last_index_entry _max_timestamp _offset_index _time_index
 *                  sets _size_bytes, _bytes_since_last_index_entry, _max_timestamp
 *   OffsetIndex    base_offset _entries _max_entries _mmap _last_offset and the in-memory
 *                  copy (_relative_offsets _batch_base_offsets _batch_sizes): sets
 *                  _entries, _last_offset, appends to the copy, writes the entry in _mmap
 *   TimeIndex      base_offset _entries _max_entries _mmap _last_entry: sets _entries,
 *                  _last_entry, writes the entry in _mmap
 *   ProducerStateManager   sets _map_end_offset (its update_map_end_offset)
 *
 * Byte layout of the batch header it reads (big-endian; see protocol/records.py):
 *
 *   0 base_offset int64 | 8 batch_length int32 | 12 partition_leader_epoch int32 |
 *   16 magic int8 | 17 crc uint32 | 21 attributes int16 | 23 last_offset_delta int32 |
 *   27 base_timestamp int64 | 35 max_timestamp int64 | 43 producer_id int64 |
 *   51 producer_epoch int16 | 53 base_sequence int32 | 57 records_count int32 | 61 records
 *
 * Crash behaviour: as the Python path's. The batch is written with pwrite at the end of
 * the segment (a short write is continued; a failed one cuts the file back and raises
 * OSError); index entries go through the indexes' shared memory maps.
 *
 * Concurrency: the caller serializes access per partition, as for every Log method. The
 * GIL is released only around pwrite, as os.pwrite does.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>   /* T_OBJECT_EX: the member type of a __slots__ field */
#include <errno.h>
#include <string.h>
#include <unistd.h>

/* protocol/records.py */
#define LOG_OVERHEAD 12
#define BATCH_HEADER_SIZE 61
#define MIN_BATCH_LENGTH 49
#define MAGIC 2
#define COMPRESSION_MASK 0x07
#define LAST_CODEC 4              /* zstd */
#define MIN_RECORD_BYTES 7
#define NO_TIMESTAMP (-1LL)
/* storage/index.py */
#define RELATIVE_OFFSET_MAX 2147483647LL

/* A step's outcome: go on, give the case to Python (nothing changed yet), or a Python
 * exception is set (a real error: memory, I/O). */
enum { GO = 0, FALL_BACK = 1, ERROR = -1 };

#define TRY(step)               \
    do {                        \
        int step_ = (step);     \
        if (step_ != GO)        \
            return step_;       \
    } while (0)

/* -- the fields, found by bind() (see "Fields, not attributes" above) ------------- */
enum { LOG, CONFIG, SEGMENT, OFFSET_INDEX, TIME_INDEX, PRODUCER_STATE, CLASS_COUNT };
static const char *const class_names[CLASS_COUNT] = {
    "Log", "LogConfig", "LogSegment", "OffsetIndex", "TimeIndex", "ProducerStateManager",
};

#define FIELDS(X)                                                                        \
    X(LOG, _closed) X(LOG, _pending_deletes) X(LOG, _roll_bounds) X(LOG, config)         \
    X(LOG, _log_end_offset) X(LOG, _recovery_point) X(LOG, _log_start_offset)            \
    X(LOG, _active) X(LOG, _producer_state) X(LOG, _last_now_ms)                         \
    X(CONFIG, segment_bytes) X(CONFIG, max_message_bytes) X(CONFIG, flush_messages)      \
    X(CONFIG, message_timestamp_type)                                                    \
    X(SEGMENT, _size_bytes) X(SEGMENT, _fd) X(SEGMENT, base_offset)                      \
    X(SEGMENT, index_interval_bytes) X(SEGMENT, _bytes_since_last_index_entry)           \
    X(SEGMENT, _max_timestamp) X(SEGMENT, _offset_index) X(SEGMENT, _time_index)         \
    X(OFFSET_INDEX, base_offset) X(OFFSET_INDEX, _entries) X(OFFSET_INDEX, _max_entries) \
    X(OFFSET_INDEX, _mmap) X(OFFSET_INDEX, _last_offset)                                 \
    X(OFFSET_INDEX, _relative_offsets) X(OFFSET_INDEX, _batch_base_offsets)              \
    X(OFFSET_INDEX, _batch_sizes)                                                        \
    X(TIME_INDEX, base_offset) X(TIME_INDEX, _entries) X(TIME_INDEX, _max_entries)       \
    X(TIME_INDEX, _mmap) X(TIME_INDEX, _last_entry)                                      \
    X(PRODUCER_STATE, _map_end_offset)

#define FIELD_ID(cls, name) cls##__##name,
enum { FIELDS(FIELD_ID) FIELD_COUNT };
#define FIELD_SPEC(cls, name) {cls, #name},
static const struct { int cls; const char *name; } field_specs[FIELD_COUNT] = {FIELDS(FIELD_SPEC)};

static PyTypeObject *classes[CLASS_COUNT];
static Py_ssize_t field_offsets[FIELD_COUNT];

/* The field's current value, borrowed; NULL when it was never set. */
#define FIELD(obj, cls, name) (*(PyObject **)((char *)(obj) + field_offsets[cls##__##name]))

/* Set a field to `value`, taking over the caller's reference. */
static void store(PyObject *obj, int field, PyObject *value)
{
    PyObject **slot = (PyObject **)((char *)obj + field_offsets[field]);
    PyObject *old = *slot;
    *slot = value;
    Py_XDECREF(old);
}
#define STORE(obj, cls, name, value) store((obj), cls##__##name, (value))

/* Also set by bind(). */
static PyObject *append_info_type;      /* storage.log.AppendInfo */
static PyObject *timestamp_offset_type; /* storage.time_index.TimestampOffset */
static PyObject *crc32c_function;       /* protocol.crc32c.crc32c */
static PyTypeObject *array_type;        /* array.array, of the offset index's copy */
static PyObject *array_frombytes;       /* array.array.frombytes */
/* One int32 in machine order, and a memoryview of it: what append_to_array hands to
 * array.frombytes. (array.append would parse its argument with PyArg_Parse, which
 * costs several times the copy; frombytes of 4 bytes into an array('i') appends one
 * item the same way, with a memcpy.) */
static int32_t array_item;
static PyObject *array_item_view;
static PyObject *str_LogAppendTime, *str_CreateTime;

/* -- values ---------------------------------------------------------------------------- */

/* `value` (a field, maybe NULL) as a C long long: FALL_BACK for anything but an int
 * that fits. */
static int as_long(PyObject *value, long long *out)
{
    if (value == NULL || !PyLong_CheckExact(value))
        return FALL_BACK;
    int overflow;
    *out = PyLong_AsLongLongAndOverflow(value, &overflow);
    return overflow ? FALL_BACK : GO;
}

/* A (timestamp_ms, offset) NamedTuple field as two long longs. */
static int as_timestamp_offset(PyObject *value, long long *timestamp_ms, long long *offset)
{
    if (value == NULL || Py_TYPE(value) != (PyTypeObject *)timestamp_offset_type)
        return FALL_BACK;
    TRY(as_long(PyTuple_GET_ITEM(value, 0), timestamp_ms));
    return as_long(PyTuple_GET_ITEM(value, 1), offset);
}

/* `value > bound` for a RollBounds field: an int, or the float inf for "never". */
static int exceeds(long long value, PyObject *bound, int *result)
{
    if (PyLong_CheckExact(bound)) {
        int overflow;
        long long limit = PyLong_AsLongLongAndOverflow(bound, &overflow);
        *result = overflow ? overflow < 0 : value > limit;
        return GO;
    }
    if (PyFloat_CheckExact(bound) && PyFloat_AS_DOUBLE(bound) == Py_HUGE_VAL) {
        *result = 0;
        return GO;
    }
    return FALL_BACK;
}

/* An instance of a NamedTuple class, filled with `items` (references taken over; a NULL
 * among them, from a failed allocation, makes the result NULL). */
static PyObject *new_named_tuple(PyObject *type, PyObject **items, Py_ssize_t count)
{
    PyObject *tuple = ((PyTypeObject *)type)->tp_alloc((PyTypeObject *)type, count);
    int missing = tuple == NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        missing |= items[i] == NULL;
        if (tuple != NULL)
            PyTuple_SET_ITEM(tuple, i, items[i]);
        else
            Py_XDECREF(items[i]);
    }
    if (missing) {
        Py_XDECREF(tuple);
        return NULL;
    }
    return tuple;
}

/* -- big-endian fields ------------------------------------------------------------------- */

static inline uint32_t get_u32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline int32_t get_i32(const unsigned char *p) { return (int32_t)get_u32(p); }
static inline int16_t get_i16(const unsigned char *p) { return (int16_t)((p[0] << 8) | p[1]); }
static inline int64_t get_i64(const unsigned char *p)
{
    return (int64_t)(((uint64_t)get_u32(p) << 32) | get_u32(p + 4));
}
static inline void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}
static inline void put_i64(unsigned char *p, int64_t v)
{
    put_u32(p, (uint32_t)((uint64_t)v >> 32));
    put_u32(p + 4, (uint32_t)v);
}

/* -- the append ------------------------------------------------------------------------ */

/* Everything the append needs, read and checked before anything changes. The PyObject
 * pointers are borrowed from the fields; the two buffers are held until the end. */
typedef struct {
    PyObject *log, *config, *segment, *offset_index, *time_index, *producer_state;
    Py_buffer batch, offset_map, time_map;
    int batch_held, offset_map_held, time_map_held;
    /* the arguments */
    long long now_ms, leader_epoch;
    int has_leader_epoch;
    /* the batch */
    long long size_bytes, last_offset_delta, records_count, batch_max_timestamp_ms;
    /* the log and its active segment */
    long long log_end_offset, segment_size_bytes, fd, bytes_since_last_index_entry;
    long long max_timestamp_ms, offset_of_max_timestamp;   /* the segment's, after */
    int max_changed, index_due;
    /* the index entries to add (offsets relative to each index's base offset) */
    int add_offset_entry, add_time_entry, offset_copy_kept;
    long long offset_entries, offset_relative_offset, offset_relative_base_offset;
    long long time_entries, time_relative_offset;
} Append;

static void release(Append *a)
{
    if (a->batch_held)
        PyBuffer_Release(&a->batch);
    if (a->offset_map_held)
        PyBuffer_Release(&a->offset_map);
    if (a->time_map_held)
        PyBuffer_Release(&a->time_map);
}

/* validate_batch (protocol/records.py), for a buffer holding exactly one batch; the CRC
 * comes last, in check_crc. */
static int check_batch(Append *a, PyObject *records)
{
    if (PyObject_GetBuffer(records, &a->batch, PyBUF_WRITABLE | PyBUF_SIMPLE) < 0) {
        PyErr_Clear();  /* read-only (Python copies it before stamping) or not bytes */
        return FALL_BACK;
    }
    a->batch_held = 1;
    const unsigned char *b = a->batch.buf;
    long long size_bytes = a->batch.len;
    if (size_bytes < BATCH_HEADER_SIZE)
        return FALL_BACK;
    long long batch_length = get_i32(b + 8);
    /* Exactly one batch: more go through Log._validate's loop. */
    if (batch_length + LOG_OVERHEAD != size_bytes || batch_length < MIN_BATCH_LENGTH || b[16] != MAGIC)
        return FALL_BACK;
    int codec = get_i16(b + 21) & COMPRESSION_MASK;
    a->last_offset_delta = get_i32(b + 23);
    a->batch_max_timestamp_ms = get_i64(b + 35);
    a->records_count = get_i32(b + 57);
    if (a->records_count < 0 || a->last_offset_delta < 0 || codec > LAST_CODEC)
        return FALL_BACK;
    if (codec == 0 && a->records_count > (batch_length - MIN_BATCH_LENGTH) / MIN_RECORD_BYTES)
        return FALL_BACK;
    if (get_i64(b + 43) >= 0)  /* `if header.producer_id >= 0`: the producer state checks it */
        return FALL_BACK;
    a->size_bytes = size_bytes;
    return GO;
}

/* Log.append, up to `segment.append`. */
static int check_log(Append *a)
{
    PyObject *log = a->log;
    /* `if self._closed` and due deletions: rare, left to Python. */
    if (FIELD(log, LOG, _closed) != Py_False)
        return FALL_BACK;
    PyObject *pending = FIELD(log, LOG, _pending_deletes);
    if (pending == NULL || !PyList_CheckExact(pending) || PyList_GET_SIZE(pending) != 0)
        return FALL_BACK;

    PyObject *config = a->config = FIELD(log, LOG, config);
    if (config == NULL || Py_TYPE(config) != classes[CONFIG])
        return FALL_BACK;
    /* `config.log_append_time`: only CreateTime topics here (nothing more to stamp). */
    PyObject *timestamp_type = FIELD(config, CONFIG, message_timestamp_type);
    if (timestamp_type == NULL || !PyUnicode_CheckExact(timestamp_type))
        return FALL_BACK;
    if (timestamp_type != str_CreateTime && PyUnicode_Compare(timestamp_type, str_LogAppendTime) == 0)
        return FALL_BACK;
    long long segment_bytes, max_message_bytes, flush_messages, recovery_point, log_start_offset;
    TRY(as_long(FIELD(config, CONFIG, segment_bytes), &segment_bytes));
    TRY(as_long(FIELD(config, CONFIG, max_message_bytes), &max_message_bytes));
    TRY(as_long(FIELD(config, CONFIG, flush_messages), &flush_messages));
    TRY(as_long(FIELD(log, LOG, _log_end_offset), &a->log_end_offset));
    TRY(as_long(FIELD(log, LOG, _recovery_point), &recovery_point));
    TRY(as_long(FIELD(log, LOG, _log_start_offset), &log_start_offset));  /* an int: AppendInfo carries it */

    /* RecordTooLarge (`_validate`), RecordBatchTooLarge. */
    if (a->size_bytes > max_message_bytes || a->size_bytes > segment_bytes)
        return FALL_BACK;
    long long last_offset = a->log_end_offset + a->last_offset_delta;
    /* `next_offset - self._recovery_point >= config.flush_messages`: the append flushes. */
    if (last_offset + 1 - recovery_point >= flush_messages)
        return FALL_BACK;

    a->producer_state = FIELD(log, LOG, _producer_state);
    if (a->producer_state == NULL || Py_TYPE(a->producer_state) != classes[PRODUCER_STATE])
        return FALL_BACK;

    PyObject *segment = a->segment = FIELD(log, LOG, _active);
    if (segment == NULL || Py_TYPE(segment) != classes[SEGMENT])
        return FALL_BACK;
    TRY(as_long(FIELD(segment, SEGMENT, _size_bytes), &a->segment_size_bytes));
    /* `if position == 0`: a segment's first batch starts its segment.ms clock. And an
     * index entry's position must fit an int32. */
    if (a->segment_size_bytes <= 0 || a->segment_size_bytes > INT32_MAX)
        return FALL_BACK;

    /* The roll checks against `_roll_bounds`. None (not computed yet) or one crossed:
     * Python computes them, or runs the exact checks (and maybe rolls). */
    PyObject *bounds = FIELD(log, LOG, _roll_bounds);
    if (bounds == NULL || !PyTuple_Check(bounds) || PyTuple_GET_SIZE(bounds) != 4)
        return FALL_BACK;
    /* The append's max timestamp is Log.append's running maximum, from NO_TIMESTAMP. */
    long long append_max_timestamp_ms = a->batch_max_timestamp_ms > NO_TIMESTAMP ? a->batch_max_timestamp_ms : NO_TIMESTAMP;
    const long long compared[4] = {
        last_offset,                /* last_offset > bounds.max_offset */
        a->segment_size_bytes + 1,  /* segment_size >= bounds.index_check_position */
        append_max_timestamp_ms,    /* max_timestamp_ms > bounds.max_timestamp_ms */
        a->now_ms,                  /* now_ms > bounds.max_now_ms */
    };
    int crossed = a->segment_size_bytes > segment_bytes - a->size_bytes;
    for (int i = 0; i < 4 && !crossed; i++)
        TRY(exceeds(compared[i], PyTuple_GET_ITEM(bounds, i), &crossed));
    return crossed ? FALL_BACK : GO;
}

/* Hold an index's memory map for writing entry `entries` of `entry_size` bytes;
 * FALL_BACK where the index would raise (no map, full). */
static int hold_map(PyObject *map, Py_buffer *view, int *held, long long entries, long long entry_size)
{
    if (map == NULL || map == Py_None)
        return FALL_BACK;
    if (PyObject_GetBuffer(map, view, PyBUF_WRITABLE | PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        return FALL_BACK;
    }
    *held = 1;
    return (entries + 1) * entry_size <= view->len ? GO : FALL_BACK;
}

/* `if not offset_index.is_full(): offset_index.append(last_offset, position, ...)`:
 * OffsetIndex.append's checks. */
static int check_offset_entry(Append *a, long long last_offset)
{
    PyObject *index = a->offset_index;
    long long max_entries, index_last_offset, base_offset;
    TRY(as_long(FIELD(index, OFFSET_INDEX, _entries), &a->offset_entries));
    TRY(as_long(FIELD(index, OFFSET_INDEX, _max_entries), &max_entries));
    if (a->offset_entries >= max_entries)
        return GO;  /* full: no entry (the next append's roll check rolls) */
    TRY(as_long(FIELD(index, OFFSET_INDEX, _last_offset), &index_last_offset));
    TRY(as_long(FIELD(index, OFFSET_INDEX, base_offset), &base_offset));
    a->offset_relative_offset = last_offset - base_offset;
    a->offset_relative_base_offset = a->log_end_offset - base_offset;
    if (a->offset_entries > 0 && last_offset <= index_last_offset)
        return FALL_BACK;
    if (a->offset_relative_offset < 0 || a->offset_relative_offset > RELATIVE_OFFSET_MAX)
        return FALL_BACK;
    TRY(hold_map(FIELD(index, OFFSET_INDEX, _mmap), &a->offset_map, &a->offset_map_held, a->offset_entries, 8));
    /* The in-memory copy: three arrays, or three Nones. */
    PyObject *copy[3] = {FIELD(index, OFFSET_INDEX, _relative_offsets),
                         FIELD(index, OFFSET_INDEX, _batch_base_offsets), FIELD(index, OFFSET_INDEX, _batch_sizes)};
    int arrays = 0, nones = 0;
    for (int i = 0; i < 3; i++) {
        arrays += copy[i] != NULL && Py_TYPE(copy[i]) == array_type;
        nones += copy[i] == Py_None;
    }
    if (arrays != 3 && nones != 3)
        return FALL_BACK;
    a->offset_copy_kept = arrays == 3;
    a->add_offset_entry = 1;
    return GO;
}

/* `if not time_index.is_full(): time_index.maybe_append(max_timestamp_ms, its offset)`:
 * TimeIndex.maybe_append's checks. */
static int check_time_entry(Append *a)
{
    PyObject *index = a->time_index;
    long long max_entries, last_timestamp_ms, last_offset, base_offset;
    TRY(as_long(FIELD(index, TIME_INDEX, _entries), &a->time_entries));
    TRY(as_long(FIELD(index, TIME_INDEX, _max_entries), &max_entries));
    if (a->time_entries >= max_entries - 1)
        return GO;  /* full: one slot stays for the entry written on roll */
    TRY(as_timestamp_offset(FIELD(index, TIME_INDEX, _last_entry), &last_timestamp_ms, &last_offset));
    long long timestamp_ms = a->max_timestamp_ms, offset = a->offset_of_max_timestamp;
    if (a->time_entries > 0 && (offset < last_offset || timestamp_ms < last_timestamp_ms))
        return FALL_BACK;  /* maybe_append raises */
    if (timestamp_ms <= last_timestamp_ms)
        return GO;  /* the timestamp has not grown: no entry */
    TRY(as_long(FIELD(index, TIME_INDEX, base_offset), &base_offset));
    a->time_relative_offset = offset - base_offset;
    if (a->time_relative_offset < 0 || a->time_relative_offset > RELATIVE_OFFSET_MAX)
        return FALL_BACK;
    TRY(hold_map(FIELD(index, TIME_INDEX, _mmap), &a->time_map, &a->time_map_held, a->time_entries, 12));
    a->add_time_entry = 1;
    return GO;
}

/* LogSegment.append. */
static int check_segment(Append *a)
{
    PyObject *segment = a->segment;
    long long base_offset, interval_bytes;
    long long last_offset = a->log_end_offset + a->last_offset_delta;
    TRY(as_long(FIELD(segment, SEGMENT, _fd), &a->fd));
    TRY(as_long(FIELD(segment, SEGMENT, base_offset), &base_offset));
    TRY(as_long(FIELD(segment, SEGMENT, index_interval_bytes), &interval_bytes));
    TRY(as_long(FIELD(segment, SEGMENT, _bytes_since_last_index_entry), &a->bytes_since_last_index_entry));
    if (a->fd < 0 || a->fd > INT_MAX)
        return FALL_BACK;
    /* SegmentOffsetOverflow (also a roll bound, so never seen here). */
    if (last_offset - base_offset < 0 || last_offset - base_offset > RELATIVE_OFFSET_MAX)
        return FALL_BACK;
    /* `self._max_timestamp or self.max_timestamp_so_far`: None until read: Python. */
    TRY(as_timestamp_offset(FIELD(segment, SEGMENT, _max_timestamp), &a->max_timestamp_ms, &a->offset_of_max_timestamp));
    if (a->batch_max_timestamp_ms > a->max_timestamp_ms) {
        a->max_timestamp_ms = a->batch_max_timestamp_ms;
        a->offset_of_max_timestamp = last_offset;
        a->max_changed = 1;
    }
    /* The indexes, opened lazily by properties in Python; an active segment has them. */
    a->offset_index = FIELD(segment, SEGMENT, _offset_index);
    a->time_index = FIELD(segment, SEGMENT, _time_index);
    if (a->offset_index == NULL || Py_TYPE(a->offset_index) != classes[OFFSET_INDEX]
        || a->time_index == NULL || Py_TYPE(a->time_index) != classes[TIME_INDEX])
        return FALL_BACK;
    a->index_due = a->bytes_since_last_index_entry > interval_bytes;
    if (!a->index_due)
        return GO;
    TRY(check_offset_entry(a, last_offset));
    return check_time_entry(a);
}

/* The CRC-32C of attributes..end against the stored one: the last check, the costly one. */
static int check_crc(Append *a)
{
    PyObject *covered = PyMemoryView_FromMemory((char *)a->batch.buf + 21, a->size_bytes - 21, PyBUF_READ);
    if (covered == NULL)
        return ERROR;
    PyObject *crc = PyObject_CallOneArg(crc32c_function, covered);
    Py_DECREF(covered);
    if (crc == NULL)
        return ERROR;
    unsigned long actual = PyLong_AsUnsignedLong(crc);
    Py_DECREF(crc);
    if (actual == (unsigned long)-1 && PyErr_Occurred())
        return ERROR;
    return actual == get_u32((const unsigned char *)a->batch.buf + 17) ? GO : FALL_BACK;
}

/* LogSegment._write_at_end: pwrite it all at the end; on failure cut back and raise. */
static int write_at_end(Append *a)
{
    const char *data = a->batch.buf;
    Py_ssize_t size = a->batch.len, written = 0;
    off_t end = (off_t)a->segment_size_bytes;
    int fd = (int)a->fd;
    while (written < size) {
        ssize_t n;
        int error;
        Py_BEGIN_ALLOW_THREADS
        n = pwrite(fd, data + written, (size_t)(size - written), end + written);
        error = errno;
        Py_END_ALLOW_THREADS
        if (n >= 0) {
            written += n;
            continue;
        }
        if (error == EINTR && PyErr_CheckSignals() == 0)
            continue;  /* PEP 475, as os.pwrite */
        if (!PyErr_Occurred()) {
            errno = error;
            PyErr_SetFromErrno(PyExc_OSError);
        }
        if (written > 0 && ftruncate(fd, end) != 0) {
            /* Python would raise this second error instead; either way the caller
             * gets an OSError and must not trust the segment's tail. */
        }
        return ERROR;
    }
    return GO;
}

/* `array.append(value)` for one of the offset index's array('i') copies. The values are
 * relative offsets and sizes within a segment, checked to fit an int32 before the write. */
static int append_to_array(PyObject *array, long long value)
{
    array_item = (int32_t)value;
    PyObject *args[2] = {array, array_item_view};
    PyObject *result = PyObject_Vectorcall(array_frombytes, args, 2, NULL);
    if (result == NULL)
        return ERROR;
    Py_DECREF(result);
    return GO;
}

/* After the write: the index entries, then the segment's and the log's fields, and the
 * AppendInfo. (These allocate; if one fails, MemoryError leaves the log as a failure
 * halfway through the Python code would.) */
static PyObject *record_append(Append *a)
{
    PyObject *log = a->log, *segment = a->segment;
    long long last_offset = a->log_end_offset + a->last_offset_delta;
    PyObject *first_offset = FIELD(log, LOG, _log_end_offset);  /* objects reused below */
    PyObject *position = FIELD(segment, SEGMENT, _size_bytes);
    Py_INCREF(first_offset);
    Py_INCREF(position);
    PyObject *last = PyLong_FromLongLong(last_offset);
    PyObject *next = PyLong_FromLongLong(last_offset + 1);
    PyObject *size = PyLong_FromLongLong(a->size_bytes);
    PyObject *info = NULL, *max_timestamp = NULL;
    if (last == NULL || next == NULL || size == NULL)
        goto done;
    /* The segment's largest timestamp and its offset, after this batch: a time-index
     * entry records the same pair. */
    if (a->add_time_entry || a->max_changed) {
        PyObject *items[2] = {PyLong_FromLongLong(a->max_timestamp_ms), PyLong_FromLongLong(a->offset_of_max_timestamp)};
        max_timestamp = new_named_tuple(timestamp_offset_type, items, 2);
        if (max_timestamp == NULL)
            goto done;
    }

    if (a->add_offset_entry) {  /* OffsetIndex.append */
        PyObject *index = a->offset_index;
        unsigned char *entry = (unsigned char *)a->offset_map.buf + a->offset_entries * 8;
        put_u32(entry, (uint32_t)a->offset_relative_offset);
        put_u32(entry + 4, (uint32_t)a->segment_size_bytes);
        PyObject *entries = PyLong_FromLongLong(a->offset_entries + 1);
        if (entries == NULL)
            goto done;
        STORE(index, OFFSET_INDEX, _entries, entries);
        STORE(index, OFFSET_INDEX, _last_offset, Py_NewRef(last));
        if (a->offset_copy_kept
            && (append_to_array(FIELD(index, OFFSET_INDEX, _relative_offsets), a->offset_relative_offset) != GO
                || append_to_array(FIELD(index, OFFSET_INDEX, _batch_base_offsets), a->offset_relative_base_offset) != GO
                || append_to_array(FIELD(index, OFFSET_INDEX, _batch_sizes), a->size_bytes) != GO))
            goto done;
    }
    if (a->add_time_entry) {  /* TimeIndex.maybe_append */
        PyObject *index = a->time_index;
        unsigned char *entry = (unsigned char *)a->time_map.buf + a->time_entries * 12;
        put_i64(entry, a->max_timestamp_ms);
        put_u32(entry + 8, (uint32_t)a->time_relative_offset);
        PyObject *entries = PyLong_FromLongLong(a->time_entries + 1);
        if (entries == NULL)
            goto done;
        STORE(index, TIME_INDEX, _entries, entries);
        STORE(index, TIME_INDEX, _last_entry, Py_NewRef(max_timestamp));
    }

    /* LogSegment.append's counters. */
    PyObject *segment_size = PyLong_FromLongLong(a->segment_size_bytes + a->size_bytes);
    PyObject *since = PyLong_FromLongLong((a->index_due ? 0 : a->bytes_since_last_index_entry) + a->size_bytes);
    if (segment_size == NULL || since == NULL) {
        Py_XDECREF(segment_size);
        Py_XDECREF(since);
        goto done;
    }
    STORE(segment, SEGMENT, _size_bytes, segment_size);
    STORE(segment, SEGMENT, _bytes_since_last_index_entry, since);
    if (a->max_changed)
        STORE(segment, SEGMENT, _max_timestamp, Py_NewRef(max_timestamp));

    /* Log.append's: `_last_now_ms` (set first there), the log end offset, and
     * `self._producer_state.update_map_end_offset(next_offset)`. */
    PyObject *now = PyLong_FromLongLong(a->now_ms);
    if (now == NULL)
        goto done;
    STORE(log, LOG, _last_now_ms, now);
    STORE(log, LOG, _log_end_offset, Py_NewRef(next));
    STORE(a->producer_state, PRODUCER_STATE, _map_end_offset, Py_NewRef(next));

    /* AppendInfo(first_offset, last_offset, max_timestamp_ms, offset_of_max_timestamp,
     * log_append_time_ms, log_start_offset, log_end_offset, segment_base_offset,
     * position, size_bytes, batch_count, record_count, duplicate): Log.append's running
     * maximum of the batches' timestamps starts at NO_TIMESTAMP, offset -1. */
    int timestamped = a->batch_max_timestamp_ms > NO_TIMESTAMP;
    PyObject *items[13] = {
        Py_NewRef(first_offset),
        Py_NewRef(last),
        PyLong_FromLongLong(timestamped ? a->batch_max_timestamp_ms : NO_TIMESTAMP),
        timestamped ? Py_NewRef(last) : PyLong_FromLong(-1),
        PyLong_FromLong(-1),  /* log_append_time_ms: CreateTime */
        Py_NewRef(FIELD(log, LOG, _log_start_offset)),
        Py_NewRef(next),
        Py_NewRef(FIELD(segment, SEGMENT, base_offset)),
        Py_NewRef(position),
        Py_NewRef(size),
        PyLong_FromLong(1),
        PyLong_FromLongLong(a->records_count),
        Py_NewRef(Py_False),
    };
    info = new_named_tuple(append_info_type, items, 13);
done:
    Py_XDECREF(max_timestamp);
    Py_DECREF(first_offset);
    Py_DECREF(position);
    Py_XDECREF(last);
    Py_XDECREF(next);
    Py_XDECREF(size);
    return info;
}

static PyObject *append_batch(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "append_batch(log, records, now_ms, leader_epoch)");
        return NULL;
    }
    if (append_info_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "storage._append: bind() was not called");
        return NULL;
    }
    Append a;
    memset(&a, 0, sizeof a);
    a.log = args[0];
    int step = Py_TYPE(a.log) == classes[LOG] ? as_long(args[2], &a.now_ms) : FALL_BACK;
    if (step == GO && args[3] != Py_None) {
        /* stamp_partition_leader_epoch packs an int32 */
        step = as_long(args[3], &a.leader_epoch);
        if (a.leader_epoch < INT32_MIN || a.leader_epoch > INT32_MAX)
            step = FALL_BACK;
        a.has_leader_epoch = 1;
    }
    /* The checks, cheapest first; the CRC once all others have passed. */
    if (step == GO)
        step = check_batch(&a, args[1]);
    if (step == GO)
        step = check_log(&a);
    if (step == GO)
        step = check_segment(&a);
    if (step == GO)
        step = check_crc(&a);

    PyObject *info = NULL;
    if (step == GO) {
        /* Every check passed: from here the append happens, or fails on I/O. */
        unsigned char *b = a.batch.buf;
        put_i64(b, a.log_end_offset);                            /* stamp_base_offset */
        if (a.has_leader_epoch)
            put_u32(b + 12, (uint32_t)(int32_t)a.leader_epoch);  /* stamp_partition_leader_epoch */
        step = write_at_end(&a);
        if (step == GO) {
            info = record_append(&a);
            step = info == NULL ? ERROR : GO;
        }
    }
    release(&a);
    if (step == FALL_BACK)
        Py_RETURN_NONE;
    return info;  /* NULL with an exception set on ERROR */
}

/* -- binding -------------------------------------------------------------------------- */

/* The offset of `cls.name`, a __slots__ field. */
static Py_ssize_t slot_offset(PyTypeObject *cls, const char *class_name, const char *name)
{
    PyObject *descriptor = PyObject_GetAttrString((PyObject *)cls, name);
    if (descriptor == NULL)
        return -1;
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY))
            offset = member->offset;
    }
    Py_DECREF(descriptor);
    if (offset < 0)
        PyErr_Format(PyExc_TypeError, "storage._append: %s.%s is not a __slots__ field", class_name, name);
    return offset;
}

static PyObject *bind(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"Log", "LogConfig", "LogSegment", "OffsetIndex", "TimeIndex",
                               "ProducerStateManager", "AppendInfo", "TimestampOffset", "crc32c", NULL};
    PyObject *types[CLASS_COUNT], *info, *timestamp_offset, *crc;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "$O!O!O!O!O!O!O!O!O:bind", keywords,
                                     &PyType_Type, &types[LOG], &PyType_Type, &types[CONFIG],
                                     &PyType_Type, &types[SEGMENT], &PyType_Type, &types[OFFSET_INDEX],
                                     &PyType_Type, &types[TIME_INDEX], &PyType_Type, &types[PRODUCER_STATE],
                                     &PyType_Type, &info, &PyType_Type, &timestamp_offset, &crc))
        return NULL;
    for (int i = 0; i < 2; i++) {  /* NamedTuples: a tuple's layout, nothing added */
        PyTypeObject *type = (PyTypeObject *)(i == 0 ? info : timestamp_offset);
        if (!PyType_IsSubtype(type, &PyTuple_Type) || type->tp_basicsize != PyTuple_Type.tp_basicsize) {
            PyErr_SetString(PyExc_TypeError, "storage._append: AppendInfo and TimestampOffset must be NamedTuples");
            return NULL;
        }
    }
    if (!PyCallable_Check(crc)) {
        PyErr_SetString(PyExc_TypeError, "storage._append: crc32c must be callable");
        return NULL;
    }
    Py_ssize_t offsets[FIELD_COUNT];
    for (int i = 0; i < FIELD_COUNT; i++) {
        int cls = field_specs[i].cls;
        offsets[i] = slot_offset((PyTypeObject *)types[cls], class_names[cls], field_specs[i].name);
        if (offsets[i] < 0)
            return NULL;
    }
    PyObject *array_module = PyImport_ImportModule("array");
    if (array_module == NULL)
        return NULL;
    PyObject *array = PyObject_GetAttrString(array_module, "array");
    Py_DECREF(array_module);
    if (array == NULL)
        return NULL;
    PyObject *frombytes = PyObject_GetAttrString(array, "frombytes");
    PyObject *probe = frombytes == NULL ? NULL : PyObject_CallFunction(array, "s", "i");
    PyObject *itemsize = probe == NULL ? NULL : PyObject_GetAttrString(probe, "itemsize");
    Py_XDECREF(probe);
    if (itemsize == NULL || PyLong_AsLong(itemsize) != (long)sizeof(int32_t)) {
        if (itemsize != NULL && !PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "storage._append: array('i') items are not 4 bytes here");
        Py_XDECREF(itemsize);
        Py_XDECREF(frombytes);
        Py_DECREF(array);
        return NULL;
    }
    Py_DECREF(itemsize);
    memcpy(field_offsets, offsets, sizeof offsets);
    for (int i = 0; i < CLASS_COUNT; i++)
        Py_XSETREF(classes[i], (PyTypeObject *)Py_NewRef(types[i]));
    Py_XSETREF(array_type, (PyTypeObject *)array);
    Py_XSETREF(array_frombytes, frombytes);
    Py_XSETREF(timestamp_offset_type, Py_NewRef(timestamp_offset));
    Py_XSETREF(crc32c_function, Py_NewRef(crc));
    Py_XSETREF(append_info_type, Py_NewRef(info));  /* last: append_batch checks it */
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"append_batch", (PyCFunction)(void (*)(void))append_batch, METH_FASTCALL,
     "append_batch(log, records, now_ms, leader_epoch) -> AppendInfo | None\n\n"
     "Log.append(records, now_ms=now_ms, leader_epoch=leader_epoch) for the common case\n"
     "(see storage/_append.c); None, with nothing changed, for any other."},
    {"bind", (PyCFunction)(void (*)(void))bind, METH_VARARGS | METH_KEYWORDS,
     "bind(*, Log, LogConfig, LogSegment, OffsetIndex, TimeIndex, ProducerStateManager,\n"
     "AppendInfo, TimestampOffset, crc32c): the classes whose fields append_batch uses,\n"
     "the types it builds, the CRC."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "storage._append",
    "Log.append's common case, compiled; see storage/_append.c and storage/log.py.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__append(void)
{
    str_LogAppendTime = PyUnicode_InternFromString("LogAppendTime");
    str_CreateTime = PyUnicode_InternFromString("CreateTime");
    array_item_view = PyMemoryView_FromMemory((char *)&array_item, sizeof array_item, PyBUF_READ);
    if (str_LogAppendTime == NULL || str_CreateTime == NULL || array_item_view == NULL)
        return NULL;
    return PyModule_Create(&module_def);
}
