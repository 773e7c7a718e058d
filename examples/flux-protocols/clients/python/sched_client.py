"""A small Python client of the Flux scheduler protocol (RFC 27), standard library only.

It builds the requests a job manager sends to the scheduler as plain dicts and encodes them as JSON. Its
payloads are checked against the reader schemas `wirecheck schema --protocol sched` exports (the test
`tests/schema_flux.rs` of the wirecheck repository runs this file):

    python3 sched_client.py OUT.json

writes every payload this client builds, each with the message it is and whether the scheduler must
accept it, to OUT.json.
"""

import json
import sys


def alloc_request(job_id, priority, userid, t_submit, jobspec):
    """sched.alloc: ask the scheduler to allocate resources to a job."""
    return {
        "id": job_id,
        "priority": priority,
        "userid": userid,
        "t_submit": t_submit,
        "jobspec": jobspec,
    }


def free_request(job_id, resources, final=None):
    """sched.free: give a job's resources (R) back; `final` marks the last free of a job."""
    request = {"id": job_id, "R": resources}
    if final is not None:
        request["final"] = final
    return request


def cancel_request(job_id):
    """sched.cancel: withdraw a pending alloc request."""
    return {"id": job_id}


def prioritize_request(jobs):
    """sched.prioritize: new priorities, as [job id, priority] pairs."""
    return {"jobs": [[job_id, priority] for job_id, priority in jobs]}


JOBSPEC = {
    "version": 1,
    "resources": [{"type": "slot", "count": 1, "label": "task",
                   "with": [{"type": "core", "count": 1}]}],
    "tasks": [{"command": ["hostname"], "slot": "task", "count": {"per_slot": 1}}],
    "attributes": {"system": {"duration": 0}},
}

R = {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}],
                                 "starttime": 0, "expiration": 0}}


def payloads():
    """Every payload this client sends, with whether the scheduler must accept it."""
    good = [
        ("AllocRequest", alloc_request(1234, 16, 1000, 1700000000.25, JOBSPEC)),
        ("FreeRequest", free_request(1234, R)),
        ("FreeRequest", free_request(1234, R, final=True)),
        ("CancelRequest", cancel_request(1234)),
        ("PrioritizeRequest", prioritize_request([(1234, 16), (1235, 4294967295)])),
    ]
    # Deliberately wrong, as a client bug would be: the RFC 27 example's alloc request without
    # `t_submit` (which the scheduler reads as required), and a negative job id.
    no_t_submit = alloc_request(1234, 16, 1000, 0.0, JOBSPEC)
    del no_t_submit["t_submit"]
    bad = [
        ("AllocRequest", no_t_submit),
        ("CancelRequest", cancel_request(-1)),
    ]
    return ([{"message": m, "payload": p, "accepted": True} for m, p in good]
            + [{"message": m, "payload": p, "accepted": False} for m, p in bad])


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: sched_client.py OUT.json\n")
        return 2
    with open(argv[1], "w", encoding="utf-8") as out:
        json.dump(payloads(), out, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
