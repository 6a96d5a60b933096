;;; agent-doc-acp.el --- ACP agents for agent-doc (eglot) -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, convenience

;;; Commentary:

;; Loaded by agent-doc.el.  Agents configured with transport = "acp"
;; (docs/acp.md) answer in the buffer while you keep typing:
;;
;;   C-c a q  `agent-doc-ask'   ask the document's ACP agent (agentDoc.runAgent):
;;                              the answer streams in below your prompt
;;   C-c a k  `agent-doc-stop'  stop it (agentDoc.stopAgent): what streamed
;;                              stays, marked *(interrupted)*
;;
;; A streamed answer is ONE undo step.  The server labels every streamed edit
;; `agent-doc stream <id>'; before the first one lands we remember the undo
;; list and the text.  When the whole answer is in (`agentDoc/answerLanded'
;; with the edits that take it out again) and the buffer is still at the
;; version the server saw, the history is rebuilt: the remembered text and
;; undo list (without recording), then the text without the answer (what you
;; typed meanwhile: one step), then the final text (one step), point and
;; every window's point where they were.  One `C-_' removes exactly the
;; answer (and its `resume' line), a second one your typing done meanwhile.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'agent-doc)

(defvar evil-undo-list-pointer)

(defconst agent-doc-acp--label "agent-doc stream "
  "Label prefix of the server's streamed edits: `agent-doc stream <id>'.")

(defvar agent-doc-acp--stream nil
  "Id of the streamed answer whose workspace edit is being applied (or nil).")

(defvar-local agent-doc-acp--start nil
  "(STREAM UNDO-LIST TEXT) just before the first streamed edit of STREAM.")

(defvar-local agent-doc-acp-last-landed nil
  "Plist of the last `agentDoc/answerLanded' handled in this buffer:
:stream, :one-undo-step (t when the answer became one undo step), :reason.")

(defvar agent-doc-answer-landed-functions nil
  "Functions called with (STREAM ONE-UNDO-STEP) in the buffer whose streamed
answer STREAM just landed whole.")

;;;; Commands

(defun agent-doc-ask ()
  "Ask the document's ACP agent (`agentDoc.runAgent').
The answer streams into the buffer below your prompt while you type."
  (interactive)
  (agent-doc-execute
   "agentDoc.runAgent" (list :uri (agent-doc--uri))
   (lambda (result)
     (when (listp result)
       (message "agent-doc: %s: %s" (or (plist-get result :agent) "agent")
                (cond ((plist-get result :noChanges) "no changes since the last answer")
                      ((eq (plist-get result :interrupted) t) "answer interrupted")
                      (t "answered")))))
   ;; the server's own limit for an agent's turn is 600 s
   900))

(defun agent-doc-stop ()
  "Stop the ACP agent answering the document (`agentDoc.stopAgent').
What it wrote so far stays, marked interrupted."
  (interactive)
  (agent-doc-execute "agentDoc.stopAgent" (list :uri (agent-doc--uri))
                     (lambda (_) (message "agent-doc: stopping the agent"))))

(define-key agent-doc-mode-map (kbd "C-c a q") #'agent-doc-ask)
(define-key agent-doc-mode-map (kbd "C-c a k") #'agent-doc-stop)

;;;; One undo step for a streamed answer

(defun agent-doc-acp--stream-of (label)
  "The stream id in an applyEdit LABEL, or nil."
  (and (stringp label) (string-prefix-p agent-doc-acp--label label)
       (substring label (length agent-doc-acp--label))))

(cl-defmethod eglot-handle-request :around
  (_server (_method (eql workspace/applyEdit)) &key label &allow-other-keys)
  "Tell `agent-doc-acp-before-edit' which streamed answer (LABEL) is applied."
  (let ((agent-doc-acp--stream (agent-doc-acp--stream-of label)))
    (cl-call-next-method)))

(defun agent-doc-acp-before-edit (version)
  "Before an agent edit for VERSION is applied (undo boundary just made).
For the first edit of a streamed answer, remember the undo list and text."
  (let ((stream agent-doc-acp--stream))
    (when (and stream (listp buffer-undo-list)
               (or (not version) (equal version eglot--versioned-identifier))
               (not (equal (car agent-doc-acp--start) stream)))
      (setq agent-doc-acp--start
            (list stream buffer-undo-list (agent-doc-acp--text))))))

(defun agent-doc-acp--tail-p (tail)
  "Non-nil when TAIL is still the end part of `buffer-undo-list'."
  (let ((list buffer-undo-list))
    (while (and (consp list) (not (eq list tail)))
      (setq list (cdr list)))
    (eq list tail)))

(defun agent-doc-acp--common-suffix (a b limit)
  "Length of the common suffix of strings A and B, at most LIMIT.
Compares 4 KB chunks from the end (no copies of A or B)."
  (let ((la (length a)) (lb (length b)) (n 0) (done nil))
    (while (not done)
      (let ((k (min 4096 (- limit n))))
        (if (and (> k 0)
                 (eq t (compare-strings a (- la n k) (- la n) b (- lb n k) (- lb n))))
            (setq n (+ n k))
          (let ((i 0))  ; the mismatch is in this chunk: find it from the end
            (while (and (< i k) (eq (aref a (- la n 1 i)) (aref b (- lb n 1 i))))
              (setq i (1+ i)))
            (setq n (+ n i) done t)))))
    n))

(defun agent-doc-acp--set-text (old text)
  "Turn the widened buffer, which holds OLD, into TEXT, replacing only the
part between their common prefix and suffix."
  (let ((same (compare-strings old nil nil text nil nil)))
    (unless (eq same t)
      (let* ((head (1- (abs same)))
             (tail (agent-doc-acp--common-suffix
                    old text (- (min (length old) (length text)) head))))
        (save-restriction
          (widen)
          (goto-char (+ (point-min) head))
          (delete-region (point) (- (point-max) tail))
          (insert (substring text head (- (length text) tail))))))))

;; Offsets below are 0-based character offsets into the widened buffer.

(defun agent-doc-acp--spans (edits)
  "The LSP EDITS as (START END NEW-TEXT) offsets, by START (buffer unchanged)."
  (save-restriction
    (widen)
    (let ((region (if (fboundp 'eglot-range-region) #'eglot-range-region
                    #'eglot--range-region))
          (spans nil))
      (dolist (edit (append edits nil))
        (let ((bounds (funcall region (plist-get edit :range))))
          (push (list (- (car bounds) (point-min)) (- (cdr bounds) (point-min))
                      (plist-get edit :newText))
                spans)))
      (sort (nreverse spans) (lambda (a b) (< (car a) (car b)))))))

(defun agent-doc-acp--inverse (spans)
  "The spans turning the buffer with SPANS applied back into what it holds now."
  (let ((delta 0) (out nil))
    (save-restriction
      (widen)
      (dolist (span spans (nreverse out))
        (let ((start (+ (nth 0 span) delta)) (new (nth 2 span)))
          (push (list start (+ start (length new))
                      (buffer-substring-no-properties (+ (point-min) (nth 0 span))
                                                      (+ (point-min) (nth 1 span))))
                out)
          (setq delta (+ delta (length new) (- (nth 0 span) (nth 1 span)))))))))

(defun agent-doc-acp--replace-spans (spans)
  "Replace each (START END TEXT) of SPANS (by START, not overlapping), last first."
  (save-restriction
    (widen)
    (dolist (span (reverse spans))
      (goto-char (+ (point-min) (nth 0 span)))
      (delete-region (point) (+ (point-min) (nth 1 span)))
      (insert (nth 2 span)))))

(defun agent-doc-acp--text ()
  "The widened buffer's text, without properties."
  (save-restriction
    (widen)
    (buffer-substring-no-properties (point-min) (point-max))))

(defun agent-doc-acp--rebuild (start edits)
  "Rebuild the history from START (see `agent-doc-acp--start'): one step for
the typing (the text without the answer: EDITS, the LSP `withoutAnswer'
applied) and one for the answer.  Every change is only the part that differs.
On an error the buffer keeps its text and undo list; the error is signalled."
  (let* ((gc-cons-threshold (max gc-cons-threshold (* 64 1024 1024)))
         (final (agent-doc-acp--text))
         (digest (buffer-hash))
         (spans (agent-doc-acp--spans edits))
         (back (agent-doc-acp--inverse spans))
         (before (nth 2 start))
         (history buffer-undo-list)
         (here (point))
         (windows (mapcar (lambda (w) (cons w (window-point w)))
                          (get-buffer-window-list nil nil t)))
         (without nil))
    (condition-case err
        (progn
          (let ((buffer-undo-list t))
            (agent-doc-acp--replace-spans spans)
            (setq without (agent-doc-acp--text))
            (agent-doc-acp--set-text without before))
          (setq buffer-undo-list (nth 1 start))
          (undo-boundary)
          (agent-doc-acp--set-text before without)
          (undo-boundary)
          (agent-doc-acp--replace-spans back)
          (undo-boundary)
          (unless (equal (buffer-hash) digest)
            (error "agent-doc: the rebuilt text differs from the answer's")))
      (error (let ((buffer-undo-list t))
               (save-restriction
                 (widen)
                 (delete-region (point-min) (point-max))
                 (insert final)))
             (setq buffer-undo-list history)
             (signal (car err) (cdr err))))
    ;; Your next keystroke must not amalgamate into the answer's step.
    (setq undo-auto--last-boundary-cause 0)
    ;; evil (not tested here) joins an insert-state session into one step from
    ;; its own pointer into the undo list, which the rebuild may have dropped.
    (when (bound-and-true-p evil-undo-list-pointer)
      (setq evil-undo-list-pointer (or buffer-undo-list t)))
    (goto-char here)
    (dolist (pin windows)
      (when (window-live-p (car pin))
        (set-window-point (car pin) (cdr pin))))))

(defun agent-doc-acp--group (start version edits)
  "Make the answer of START one undo step; nil when done, else why not.
VERSION is the buffer version EDITS (withoutAnswer) were computed for."
  (cond ((not (equal version eglot--versioned-identifier))
         "the buffer changed since the answer landed")
        ((not (agent-doc-acp--tail-p (nth 1 start)))
         "the undo history before the answer is gone")
        (t (agent-doc-acp--rebuild start edits)
           nil)))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentDoc/answerLanded)) &rest params)
  "The streamed answer of PARAMS is whole: make it one undo step."
  (let* ((uri (plist-get params :uri))
         (stream (plist-get params :stream))
         (buffer (and (stringp uri) (find-buffer-visiting (eglot--uri-to-path uri)))))
    (when buffer
      (with-current-buffer buffer
        (let ((start agent-doc-acp--start))
          (when (equal (car start) stream)
            (setq agent-doc-acp--start nil)
            (let ((reason (condition-case err
                              (agent-doc-acp--group start (plist-get params :version)
                                                    (plist-get params :withoutAnswer))
                            (error (error-message-string err)))))
              (setq agent-doc-acp-last-landed
                    (list :stream stream :one-undo-step (null reason) :reason reason))
              (run-hook-with-args 'agent-doc-answer-landed-functions
                                  stream (null reason)))))))))

(provide 'agent-doc-acp)
;;; agent-doc-acp.el ends here
