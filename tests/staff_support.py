"""Signing staff in for tests: an enrolled second factor (TOTP), its current code, and a test
client whose session has used it, as the login form would leave it."""

import time

from django.test import Client
from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import hotp
from django_otp.plugins.otp_totp.models import TOTPDevice


def enrol(user) -> TOTPDevice:
    """The account's confirmed authenticator device (made when missing)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="test phone", confirmed=True)


def code(device: TOTPDevice, *, ahead: int = 0) -> str:
    """The code the phone shows now (``ahead`` 1: the next one, for a second use within one
    30-second step, which the device refuses as a replay)."""
    device.refresh_from_db()
    counter = (int(time.time()) - device.t0) // device.step + ahead
    return str(hotp(device.bin_key, counter, digits=device.digits)).zfill(device.digits)


def sign_in(client: Client, user) -> Client:
    """``client`` signed in as ``user`` with a second factor used, as after the login form."""
    client.force_login(user)
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = enrol(user).persistent_id
    session.save()
    return client
