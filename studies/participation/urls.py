from django.urls import path

from studies.participation import views

# the namespace the participant templates name (`annotation:answer`), from when these
# pages lived in the annotation app
app_name = "annotation"

urlpatterns = [
    path("s/<slug:link>/", views.enter, name="enter"),
    path("s/<slug:link>/step/", views.step, name="step"),
    path("s/<slug:link>/consent/", views.consent, name="consent"),
    path("s/<slug:link>/begin/", views.begin, name="begin"),
    path("s/<slug:link>/answer/", views.answer, name="answer"),
]
