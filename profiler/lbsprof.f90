! lbsprof.f90 - the Fortran 90 interface to liblbsprof (see lbsprof.h for what each call does).
!
!   use lbsprof
!   type(c_ptr) :: p
!   integer :: ierr, w
!   ierr = lbsprof_start(MPI_COMM_WORLD, 'run.lbt', p)          ! collective
!   w = lbsprof_metric(p, 'weight', 'cells')                     ! optional value metric
!   ev = lbsprof_event(p, 'partition_s')                         ! optional: the app's own costs
!   ph = lbsprof_phase_register(p, 'H')                          ! optional: a phase of the step
!   ierr = lbsprof_meta(p, 'edge_weight', 'flag*rwgt[target]')  ! optional: an app key (lbsprof.h)
!   ! (or 'stored@step': the arcs' weights given per step with lbsprof_edge_weights below)
!   ierr = lbsprof_mesh_box(p, global, lo, hi)                   ! integer(c_int64_t) arrays(3)
!   ! or a graph with a weight per arc (0-based ids, xadj from 0: lbsprof.h's C arrays):
!   ! ierr = lbsprof_mesh_weighted(p, n, gid, dim, coords, xadj, adj, adjw)
!   do step ...
!     ierr = lbsprof_phase(p, ph)      ! the following elements' time also goes to time_ns.H
!     call lbsprof_elem_begin(p, i)  ! i: local index from 0, integer(c_int64_t)
!     ... work ...
!     call lbsprof_elem_end(p, i)
!     ierr = lbsprof_set_value(p, w, i, value)
!     ierr = lbsprof_edge_weights(p, xadj, wts)  ! stored@step: xadj(n+1) from 0, each element's arcs
!     ierr = lbsprof_step_end(p)
!     ierr = lbsprof_event_add(p, ev, seconds)   ! real(c_double): this rank's seconds, this step
!     ierr = lbsprof_remap(p, n, gid)   ! collective, after elements moved: local i is gid(i+1)
!   end do
!   ierr = lbsprof_finalize(p)                                   ! collective
module lbsprof
  use iso_c_binding
  implicit none
  private
  public :: lbsprof_start, lbsprof_metric, lbsprof_mesh_box, lbsprof_elem_begin, lbsprof_elem_end, &
            lbsprof_set_value, lbsprof_step_end, lbsprof_remap, lbsprof_finalize, lbsprof_error, lbsprof_event, &
            lbsprof_event_add, lbsprof_phase_register, lbsprof_phase, lbsprof_mesh_weighted, lbsprof_meta, &
            lbsprof_edge_weights, &
            c_ptr, c_int64_t, c_double

  interface
    function c_init(comm, path, metrics, every, bound, p) bind(c, name='lbsprof_init_f') result(rc)
      import :: c_int, c_char, c_ptr
      integer(c_int), value :: comm, every
      character(kind=c_char) :: path(*), metrics(*), bound(*)
      type(c_ptr) :: p
      integer(c_int) :: rc
    end function
    function c_value_metric(p, name, unit) bind(c, name='lbsprof_value_metric') result(id)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: p
      character(kind=c_char) :: name(*), unit(*)
      integer(c_int) :: id
    end function
    function lbsprof_mesh_box(p, global, lo, hi) bind(c, name='lbsprof_mesh_box') result(rc)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: p
      integer(c_int64_t) :: global(3), lo(3), hi(3)
      integer(c_int) :: rc
    end function
    ! n elements gid(1:n) (0-based global ids), coords(dim*n) (dim 1..3), the local CSR graph
    ! xadj(n+1) (from 0) and adj (0-based ids), and adjw: the weight of each arc of adj, finite
    ! and >= 0 (the trace's edge weights; lbsprof_mesh_weighted in lbsprof.h)
    function lbsprof_mesh_weighted(p, n, gid, dim, coords, xadj, adj, adjw) &
        bind(c, name='lbsprof_mesh_weighted') result(rc)
      import :: c_ptr, c_int64_t, c_int, c_double
      type(c_ptr), value :: p
      integer(c_int64_t), value :: n
      integer(c_int64_t) :: gid(*), xadj(*), adj(*)
      integer(c_int), value :: dim
      real(c_double) :: coords(*), adjw(*)
      integer(c_int) :: rc
    end function
    ! with edge_weight = 'stored@step': this step's weights of the local elements' arcs, xadj(n+1)
    ! (from 0) over the local elements and w(xadj(i)+1 : xadj(i+1)) the arcs of element i in the
    ! mesh's order (lbsprof_edge_weights in lbsprof.h); not collective
    function lbsprof_edge_weights(p, xadj, w) bind(c, name='lbsprof_edge_weights') result(rc)
      import :: c_ptr, c_int64_t, c_int, c_double
      type(c_ptr), value :: p
      integer(c_int64_t) :: xadj(*)
      real(c_double) :: w(*)
      integer(c_int) :: rc
    end function
    function c_meta(p, key, value) bind(c, name='lbsprof_meta') result(rc)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: p
      character(kind=c_char) :: key(*), value(*)
      integer(c_int) :: rc
    end function
    subroutine lbsprof_elem_begin(p, i) bind(c, name='lbsprof_elem_begin')
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: p
      integer(c_int64_t), value :: i
    end subroutine
    subroutine lbsprof_elem_end(p, i) bind(c, name='lbsprof_elem_end')
      import :: c_ptr, c_int64_t
      type(c_ptr), value :: p
      integer(c_int64_t), value :: i
    end subroutine
    function lbsprof_set_value(p, metric, i, v) bind(c, name='lbsprof_set_value') result(rc)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: p
      integer(c_int), value :: metric
      integer(c_int64_t), value :: i
      real(c_double), value :: v
      integer(c_int) :: rc
    end function
    function lbsprof_step_end(p) bind(c, name='lbsprof_step_end') result(rc)
      import :: c_ptr, c_int
      type(c_ptr), value :: p
      integer(c_int) :: rc
    end function
    ! n: the rank's elements after a migration; gid(1:n): their global ids, 0-based
    function lbsprof_remap(p, n, gid) bind(c, name='lbsprof_remap') result(rc)
      import :: c_ptr, c_int64_t, c_int
      type(c_ptr), value :: p
      integer(c_int64_t), value :: n
      integer(c_int64_t) :: gid(*)
      integer(c_int) :: rc
    end function
    function c_event_register(p, name) bind(c, name='lbsprof_event_register') result(id)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: p
      character(kind=c_char) :: name(*)
      integer(c_int) :: id
    end function
    ! id: from lbsprof_event; seconds: finite, >= 0, added to this rank's event at this step
    function lbsprof_event_add(p, id, seconds) bind(c, name='lbsprof_event_add') result(rc)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: p
      integer(c_int), value :: id
      real(c_double), value :: seconds
      integer(c_int) :: rc
    end function
    function c_phase_register(p, name) bind(c, name='lbsprof_phase_register') result(id)
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: p
      character(kind=c_char) :: name(*)
      integer(c_int) :: id
    end function
    ! id: from lbsprof_phase_register, or -1 for none; the following elements' time goes to it
    function lbsprof_phase(p, id) bind(c, name='lbsprof_phase') result(rc)
      import :: c_ptr, c_int
      type(c_ptr), value :: p
      integer(c_int), value :: id
      integer(c_int) :: rc
    end function
    function lbsprof_finalize(p) bind(c, name='lbsprof_finalize') result(rc)
      import :: c_ptr, c_int
      type(c_ptr) :: p
      integer(c_int) :: rc
    end function
    subroutine c_errmsg(buf, n) bind(c, name='lbsprof_errmsg_f')
      import :: c_char, c_int
      character(kind=c_char) :: buf(*)
      integer(c_int), value :: n
    end subroutine
  end interface

contains

  ! Starts profiling on a communicator (an integer handle from `use mpi`) into trace path.
  ! Optional: metrics ('time_ns,cycles'), sample_every, bound ('rel:0.005', 'abs:5',
  ! 'range:1e-3' or 'lossless'). The LBSPROF_* environment variables override them (lbsprof.h).
  ! Returns 0 on success.
  function lbsprof_start(comm, path, p, metrics, sample_every, bound) result(rc)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: path
    type(c_ptr), intent(out) :: p
    character(len=*), intent(in), optional :: metrics
    integer, intent(in), optional :: sample_every
    character(len=*), intent(in), optional :: bound
    integer :: rc, every
    character(len=256) :: m, b
    m = ''
    b = ''
    every = 0
    if (present(metrics)) m = metrics
    if (present(sample_every)) every = sample_every
    if (present(bound)) b = bound
    rc = c_init(int(comm, c_int), trim(path)//c_null_char, trim(m)//c_null_char, int(every, c_int), &
                trim(b)//c_null_char, p)
  end function

  ! A value metric the program sets; returns its id (negative on error).
  function lbsprof_metric(p, name, unit) result(id)
    type(c_ptr), intent(in) :: p
    character(len=*), intent(in) :: name, unit
    integer :: id
    id = c_value_metric(p, trim(name)//c_null_char, trim(unit)//c_null_char)
  end function

  ! An event of the application (before the mesh; every rank the same names in the same order);
  ! returns its id (negative on error).
  function lbsprof_event(p, name) result(id)
    type(c_ptr), intent(in) :: p
    character(len=*), intent(in) :: name
    integer :: id
    id = c_event_register(p, trim(name)//c_null_char)
  end function

  ! A phase of the step, metric time_ns.NAME (before the mesh; every rank the same names in the
  ! same order); returns its id (negative on error).
  function lbsprof_phase_register(p, name) result(id)
    type(c_ptr), intent(in) :: p
    character(len=*), intent(in) :: name
    integer :: id
    id = c_phase_register(p, trim(name)//c_null_char)
  end function

  ! A key of the application (before the mesh; lbsprof_meta in lbsprof.h): 'edge_weight' =
  ! 'flag*rwgt[target]' makes the trace's communication follow the value metric 'rwgt'.
  function lbsprof_meta(p, key, value) result(rc)
    type(c_ptr), intent(in) :: p
    character(len=*), intent(in) :: key, value
    integer :: rc
    rc = c_meta(p, trim(key)//c_null_char, trim(value)//c_null_char)
  end function

  ! The last error message.
  function lbsprof_error() result(msg)
    character(len=512) :: msg
    character(kind=c_char) :: buf(512)
    integer :: k
    call c_errmsg(buf, 512_c_int)
    msg = ''
    do k = 1, 511
      if (buf(k) == c_null_char) exit
      msg(k:k) = buf(k)
    end do
  end function
end module lbsprof
