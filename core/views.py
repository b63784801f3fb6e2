"""Staff pages of the admin site (enrolling a second factor, new recovery codes,
re-authenticating before a sensitive action) and robots.txt."""

from base64 import b32encode
from io import BytesIO

from django.conf import settings
from django.contrib import messages
from django.contrib.admin import site
from django.http import HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django_otp import login as otp_login
from django_otp.plugins.otp_totp.models import TOTPDevice

from . import signin
from .forms import EnrolForm, ReauthenticationForm
from .models import SignInEvent


def _context(request, title: str, **extra) -> dict:
    return {**site.each_context(request), "title": title, **extra}


def _qr_svg(data: str) -> str:
    import segno

    out = BytesIO()
    segno.make(data, error="m").save(out, kind="svg", scale=5, xmldecl=False, svgns=True)
    return out.getvalue().decode()


def second_factor(request):
    """Enrol an authenticator app (TOTP): scan the code or type the key, confirm with a code;
    then the recovery codes are shown once. An enrolled account sees its state and may make
    new recovery codes (after re-authenticating)."""
    user = request.user
    if signin.has_second_factor(user):
        if request.method == "POST" and request.POST.get("action") == "new-codes":
            redirect = signin.require_recent_authentication(request, back=request.path)
            if redirect is not None:
                return redirect
            codes = signin.new_recovery_codes(user)
            return _codes_page(request, codes)
        device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
        return TemplateResponse(
            request,
            "admin/core/second_factor.html",
            _context(
                request,
                "Second factor",
                device=device,
                codes_left=signin.recovery_codes_left(user),
                required=signin.needs_second_factor(user),
            ),
        )
    device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
    if device is None:
        device = TOTPDevice.objects.create(user=user, name="authenticator app", confirmed=False)
    form = EnrolForm(device, request.POST or None)
    if request.method == "POST" and form.is_valid():
        device.confirmed = True
        device.save()
        TOTPDevice.objects.filter(user=user, confirmed=False).delete()
        otp_login(request, device)
        signin.mark_reauthenticated(request)
        signin.record(request, SignInEvent.Kind.ENROLLED, user=user, detail="authenticator app")
        return _codes_page(request, signin.new_recovery_codes(user))
    return TemplateResponse(
        request,
        "admin/core/enrol.html",
        _context(
            request,
            "Enrol a second factor",
            form=form,
            qr=mark_safe(_qr_svg(device.config_url)),  # segno's own SVG
            secret=b32encode(device.bin_key).decode(),
            required=signin.needs_second_factor(user),
        ),
    )


def _codes_page(request, codes: list[str]):
    messages.success(request, "Your second factor is ready.")
    return TemplateResponse(
        request,
        "admin/core/recovery_codes.html",
        _context(request, "Recovery codes", codes=codes),
    )


def reauthenticate(request):
    """Password (and code) again before a sensitive action; then back to where it started."""
    back = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("admin:index")
    form = ReauthenticationForm(request, request.POST or None)
    if request.method == "POST" and form.is_valid():
        if getattr(form.user, "otp_device", None) is not None:
            otp_login(request, form.user.otp_device)
        signin.mark_reauthenticated(request)
        signin.record(request, SignInEvent.Kind.REAUTHENTICATED, user=request.user)
        return HttpResponseRedirect(back)
    minutes = settings.STAFF_REAUTH_SECONDS // 60
    return TemplateResponse(
        request,
        "admin/core/reauthenticate.html",
        _context(request, "Confirm it is you", form=form, next=back, minutes=minutes),
    )


def robots_txt(request):
    """Crawlers stay off the admin. A custom admin path (STAFF_ADMIN_PATH) is not named here,
    which would publish it; its pages send ``X-Robots-Tag: noindex, nofollow`` instead."""
    lines = ["User-agent: *"]
    if settings.STAFF_ADMIN_PATH == "admin/":
        lines.append("Disallow: /admin/")
    else:
        lines.append("Disallow:")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
