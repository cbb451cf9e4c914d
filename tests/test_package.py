import picolite
from picolite import _picolite


def test_version_matches_c_runtime():
    assert picolite.__version__ == _picolite.version()
    assert picolite.__version__.count(".") == 2
