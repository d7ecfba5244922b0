"""protocol/java_order.py's models of java.util.concurrent.ConcurrentHashMap's iteration order
and of a java.util.HashMap copied from another map, against what Java 17 and Kafka 4.1.1 did."""

from __future__ import annotations

import pytest

from protocol.java_order import concurrent_hash_map_order, copied_hash_map, topic_partition_hash

# ConcurrentHashMap: the orders Java 17 iterated these Integer keys in (drawn by java.util.Random,
# put in this order): 27 and 41 keys, the table doubled at the 12th and the 24th
CHM_KEYS_27 = [
    -1155869325, 431529176, 1761283695, 1749940626, 892128508, 155629808, 1429008869, -1465154083,
    -138487339, -1242363800, 26273138, 655996946, -155886662, 685382526, -258276172, -1915244828,
    -226796111, -382464772, -270230103, 2092024379, 1705850753, -369526632, 1492578621, 684358198,
    1262965348, 1584853918, -2119636700,
]
CHM_ORDER_27 = [17, 6, 16, 19, 11, 22, 26, 18, 12, 4, 2, 9, 3, 1, 21, 10, 24, 13, 25, 0, 8, 20, 14, 15, 5, 7, 23]
CHM_KEYS_41 = [
    -1155099828, -1879439976, 304908421, -836442134, 288278256, -1795872892, -995758198, -1824734168,
    976394918, -634239373, -1458916125, 1515333764, -830330741, 285587229, 128065962, 1767665612,
    -811018144, 580736275, -234435524, -580395097, 655985822, -1237341112, -385360525, -1818437706,
    -3666739, 177583826, -1975716582, 594038518, -96583403, 2058105586, 680485277, -1964752025,
    -1936649451, 1990579537, 401776384, -815464462, 1904347123, 1743248268, 1773228306, 318397575,
    1230497715,
]
CHM_ORDER_41 = [
    19, 9, 31, 32, 24, 20, 25, 14, 16, 12, 3, 17, 15, 30, 8, 7, 11, 35, 13, 4, 27, 29, 1, 38, 40, 26,
    10, 2, 0, 23, 28, 37, 6, 5, 36, 34, 22, 33, 21, 18, 39,
]


def test_concurrent_hash_map_order_as_java_iterates():
    assert concurrent_hash_map_order(CHM_KEYS_27) == CHM_ORDER_27
    assert concurrent_hash_map_order(CHM_KEYS_41) == CHM_ORDER_41


def test_the_shards_of_fifty_offsets_partitions_in_kafkas_listgroups_order():
    # one group in each of the 50 partitions of __consumer_offsets: Kafka 4.1.1's ListGroups
    # listed their partitions in this order
    kafkas = [13, 46, 9, 42, 21, 17, 30, 26, 5, 38, 1, 34, 16, 45, 12, 41, 24, 20, 49, 0, 29, 25, 8, 37, 4, 33,
              15, 48, 11, 44, 23, 19, 32, 28, 7, 40, 3, 36, 47, 14, 43, 10, 22, 18, 31, 27, 39, 6, 35, 2]
    assert concurrent_hash_map_order(topic_partition_hash("__consumer_offsets", p) for p in range(50)) == kafkas


# new HashMap<>(source) then put("metadata.version"): the orders Java 17 iterated, for sources of
# 1, 3, 6 and 12 keys (the copy sized 2 buckets, doubled by the put, then 8, 16 and 32), the
# source iterating as listed
COPIES = [
    (
        [
            "f64236.version"
        ],
        [
            "f64236.version", "metadata.version"
        ],
    ),
    (
        [
            "f78044.version", "f89380.version", "f66254.version"
        ],
        [
            "f89380.version", "f78044.version", "f66254.version", "metadata.version"
        ],
    ),
    (
        [
            "f89662.version", "f12961.version", "f50738.version", "f71307.version", "f38279.version",
            "f57842.version"
        ],
        [
            "f50738.version", "f12961.version", "metadata.version", "f57842.version", "f71307.version",
            "f38279.version", "f89662.version"
        ],
    ),
    (
        [
            "f86820.version", "f105.version", "f4529.version", "f9347.version", "f32454.version",
            "f40652.version", "f27637.version", "f49720.version", "f95114.version", "f64396.version",
            "f76980.version", "f94221.version"
        ],
        [
            "f86820.version", "f95114.version", "f27637.version", "metadata.version", "f76980.version",
            "f64396.version", "f9347.version", "f105.version", "f49720.version", "f4529.version",
            "f32454.version", "f94221.version", "f40652.version"
        ],
    ),
]


@pytest.mark.parametrize("source,expected", COPIES)
def test_a_copied_hash_map_is_sized_for_what_it_copies(source, expected):
    table = copied_hash_map((key, 1) for key in source)
    table["metadata.version"] = 27
    assert list(table) == expected
