"""tenferro.fft: the Array API 2023.12 fft extension (docs/python.md, "FFT") over the C++ ops of
tenferro/ops/fft.hpp (FFTW underneath): fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, rfftn,
irfftn, fftfreq, rfftfreq, fftshift, ifftshift, with the standard's keywords (n=, axis=, norm=,
s=, axes=, d=). Every transform is differentiable and works in traced programs.

    import tenferro as tf
    X = tf.fft.rfft(tf.asarray([1.0, 2.0, 3.0, 4.0]), norm="ortho")

The functions live in the compiled extension (``tenferro._tenferro._fft``); this module
re-exports them.
"""

from . import _tenferro

_impl = _tenferro._fft

__all__ = sorted(name for name in dir(_impl) if not name.startswith("_"))
globals().update({name: getattr(_impl, name) for name in __all__})


def _ints(v):
    # s= and axes= are sequences of ints in the standard; NumPy arrays and NumPy integers are
    # accepted too (as tuples of Python ints), an int stays an int.
    if v is None or isinstance(v, int):
        return v
    return tuple(int(i) for i in v)


def _nd(name):
    c_fn = getattr(_impl, name)

    def transform(x, /, *, s=None, axes=None, norm="backward"):
        return c_fn(x, s=_ints(s), axes=_ints(axes), norm=norm)

    transform.__name__ = name
    transform.__doc__ = c_fn.__doc__
    return transform


def _shift(name):
    c_fn = getattr(_impl, name)

    def shift(x, /, *, axes=None):
        return c_fn(x, axes=_ints(axes))

    shift.__name__ = name
    shift.__doc__ = c_fn.__doc__
    return shift


for _name in ("fftn", "ifftn", "rfftn", "irfftn"):
    globals()[_name] = _nd(_name)
for _name in ("fftshift", "ifftshift"):
    globals()[_name] = _shift(_name)
del _name
