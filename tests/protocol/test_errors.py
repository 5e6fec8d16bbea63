"""One error tree: every error has a distinct stable code."""

from __future__ import annotations

import protocol.errors as errors


def _all_error_classes() -> list[type[errors.KingsCornerError]]:
    found = []
    for value in vars(errors).values():
        if isinstance(value, type) and issubclass(value, errors.KingsCornerError):
            found.append(value)
    return found


def test_every_error_has_its_own_code_and_a_sentence() -> None:
    classes = _all_error_classes()
    codes = [cls.code for cls in classes]
    assert len(codes) == len(set(codes)), sorted(codes)
    for cls in classes:
        assert cls.code.replace("_", "").isalpha() and cls.code.islower()
        assert cls().message.endswith((".", "!"))


def test_client_errors_are_the_clients_fault_and_others_are_not() -> None:
    assert errors.NotYourTurn.client_fault and errors.BadMessage.client_fault
    assert not errors.StoreUnavailable.client_fault and not errors.KingsCornerError.client_fault
